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
 * One question to the thread's store, with the memory of pages the event loop has sent since the
 * last (`NoticeThread.release`), transferred back for later pages.
 */
export type NoticeThreadRequest = { readonly id: number; readonly recycled?: ArrayBuffer[] } & (
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

parentPort?.on("message", (request: NoticeThreadRequest) => {
  for (const memory of request.recycled ?? []) store.recycle(memory);
  answer(request).then(
    (answered) =>
      parentPort?.postMessage(answered, "bytes" in answered ? [answered.bytes.buffer as ArrayBuffer] : []),
    (err: unknown) => {
      if (err instanceof ApiError) {
        parentPort?.postMessage({
          id: request.id,
          refused: { code: err.code, details: err.details },
        } satisfies NoticeThreadAnswer);
        return;
      }
      const { code, message } = err as { code?: unknown; message?: unknown };
      parentPort?.postMessage({
        id: request.id,
        error: { code: typeof code === "string" ? code : undefined, message: String(message) },
      } satisfies NoticeThreadAnswer);
    },
  );
});
