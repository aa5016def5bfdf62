/**
 * The worker thread of `NoticeThread`: a `NoticeStore` on a database connection of its own, holding
 * the notices in memory and answering `NoticeThreadRequest`s with `NoticeThreadAnswer`s (a page's
 * text as UTF-8 bytes, transferred). Started with `NoticeThreadOptions` as its data.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ApiError, type ApiErrorDetails } from "../domain/api-error.js";
import type { CountResult } from "../domain/count-options.js";
import type { ErrorCode } from "../domain/error-catalog.js";
import type { Notice } from "../domain/notice.js";
import type { NoticeCountQuery } from "../domain/notice-count-query.js";
import type { NoticeQuery } from "../domain/notice-query.js";
import { collectGarbage } from "./collect-garbage.js";
import type { OpenOptions } from "./database.js";
import { lowerThreadPriority } from "./lower-thread-priority.js";
import type { NoticeListRequest, NoticePage } from "./notice-reader.js";
import { NoticeStore } from "./notice-store.js";
import { openDatabase } from "./open-database.js";

/** What a notice thread is started with. */
export interface NoticeThreadOptions {
  /** The database's file or URL, as `openDatabase` takes it. */
  readonly location: string;
  readonly open: OpenOptions;
}

/**
 * What the event loop posts at once: the questions asked since its last message (in one turn of
 * its loop), and the memory of the pages it has sent since (`NoticeThread.release`), transferred
 * back for later pages.
 */
export interface NoticeThreadMessage {
  readonly questions: readonly NoticeThreadRequest[];
  readonly recycled: readonly ArrayBuffer[];
}

/** One question to the thread's store. */
export type NoticeThreadRequest = { readonly id: number } & (
  | {
      readonly kind: "list";
      readonly request: NoticeListRequest;
      readonly atVersion: number;
    }
  | { readonly kind: "export"; readonly query: NoticeQuery }
  | { readonly kind: "counts"; readonly query: NoticeCountQuery }
  | { readonly kind: "find"; readonly noticeId: string }
  | { readonly kind: "warm" }
);

/**
 * Its answer: a result, a refused request (an `ApiError`'s code and details), or the error met
 * (`code` as the database driver named it).
 */
export type NoticeThreadAnswer =
  | { readonly id: number; readonly bytes: Uint8Array }
  | { readonly id: number; readonly result: NoticePage | CountResult | Notice | undefined }
  | { readonly id: number; readonly refused: { readonly code: ErrorCode; readonly details: ApiErrorDetails } }
  | { readonly id: number; readonly error: { readonly code: string | undefined; readonly message: string } };

const options = workerData as NoticeThreadOptions;
// Filtering notices takes the processor for milliseconds at a time; under a flood of costly notice
// requests the event loop (health checks, cheap pages) must not wait behind it for a core.
lowerThreadPriority("background");
// With the small page cache `NoticeThread.optionsFor` gives it: the notices are read once per
// version, into memory, and a page cache would only hold a second copy.
const database = openDatabase(options.location, options.open);
// Each snapshot's build is followed by a full collection, which gives back the 30 to 50 MB the build
// grew the heap by.
const store = new NoticeStore(database, { afterPreparations: collectGarbage });

async function answer(request: NoticeThreadRequest): Promise<NoticeThreadAnswer> {
  switch (request.kind) {
    case "list": {
      // Transferred to the event loop, whole: a page is in memory of its own (`listBytes`).
      const bytes = await store.listBytes(request.request, request.atVersion);
      return { id: request.id, bytes: bytes.byteOffset === 0 ? bytes : new Uint8Array(bytes) };
    }
    case "export":
      return { id: request.id, result: await store.export(request.query) };
    case "counts":
      return { id: request.id, result: await store.countGroups(request.query) };
    case "find":
      return { id: request.id, result: await store.findById(request.noticeId) };
    case "warm":
      await store.warm();
      // What warming left behind goes now, not in a collection during the first requests.
      collectGarbage();
      return { id: request.id, result: undefined };
  }
}

/**
 * List pages answered at most per message to the event loop. A message costs both threads (its
 * serialization, the loop's wake-up): about an eighth of this thread's time under distinct load
 * when every page went alone.
 */
const ANSWERS_PER_MESSAGE = 8;

/** Answers not posted yet, the memory they transfer, and the list questions not answered yet. */
let outbox: NoticeThreadAnswer[] = [];
let transfers: ArrayBuffer[] = [];
let openLists = 0;

/**
 * Posts `answered` with the answers before it: at once for anything but a list page; a page waits
 * while more list questions are open, until `ANSWERS_PER_MESSAGE` are ready (pages take
 * microseconds to a few milliseconds each, so a page waits at most for a few others).
 */
function post(request: NoticeThreadRequest, answered: NoticeThreadAnswer): void {
  outbox.push(answered);
  if ("bytes" in answered) transfers.push(answered.bytes.buffer as ArrayBuffer);
  if (request.kind === "list" && --openLists > 0 && outbox.length < ANSWERS_PER_MESSAGE) return;
  parentPort?.postMessage(outbox, transfers);
  outbox = [];
  transfers = [];
}

function failed(request: NoticeThreadRequest, err: unknown): NoticeThreadAnswer {
  if (err instanceof ApiError) return { id: request.id, refused: { code: err.code, details: err.details } };
  const { code, message } = err as { code?: unknown; message?: unknown };
  return {
    id: request.id,
    error: { code: typeof code === "string" ? code : undefined, message: String(message) },
  };
}

parentPort?.on("message", ({ questions, recycled }: NoticeThreadMessage) => {
  for (const memory of recycled) store.recycle(memory);
  for (const request of questions) {
    if (request.kind === "list") openLists++;
    answer(request).then(
      (answered) => post(request, answered),
      (err: unknown) => post(request, failed(request, err)),
    );
  }
});
