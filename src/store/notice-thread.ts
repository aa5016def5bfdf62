import { setTimeout as sleep } from "node:timers/promises";
import type { Worker } from "node:worker_threads";
import { ApiError } from "../domain/api-error.js";
import { NOTICES } from "../domain/collections.js";
import type { CountResult } from "../domain/count-options.js";
import type { Notice } from "../domain/notice.js";
import type { NoticeCountQuery } from "../domain/notice-count-query.js";
import type { NoticeQuery } from "../domain/notice-query.js";
import type { CollectionVersion } from "./collection-version.js";
import type { Database, OpenOptions } from "./database.js";
import type { NoticeListRequest, NoticePage, NoticeReader } from "./notice-reader.js";
import { NoticeStore } from "./notice-store.js";
import type {
  NoticeThreadAnswer,
  NoticeThreadMessage,
  NoticeThreadOptions,
  NoticeThreadRequest,
} from "./notice-thread-worker.js";
import { startWorker } from "./start-worker.js";

/**
 * The notice thread's heap, in MB: the collection held in memory (about 40 MB for the 28,000 notices
 * of the real one) with its indexes and the filters' matches, with room to spare; the process's own
 * heap no longer holds them (docs/deployment.md, Operations).
 */
export const NOTICE_THREAD_HEAP_MB = 128;

/** How long `close` waits for the questions already asked. */
const CLOSE_GRACE_MS = 2_000;

type Question = NoticeThreadRequest extends infer Request
  ? Request extends { readonly id: number }
    ? Omit<Request, "id">
    : never
  : never;

interface Pending {
  readonly resolve: (answer: NoticeThreadAnswer) => void;
  readonly reject: (err: Error) => void;
}

/**
 * Memory of sent pages the event loop holds for the thread at most, in bytes: given back with the
 * next message of questions (`release`, `flush`).
 */
const RETURNED_BYTES = 4 * 1024 * 1024;

/** The page cache of the thread's SQLite connection, in KiB. */
const NOTICE_THREAD_CACHE_KIB = 2_048;

/**
 * The notices held in memory on a worker thread of their own (a `NoticeStore` there, on a database
 * connection of its own), so that filtering notices and writing their pages, which take up to a
 * few milliseconds each, never hold the event loop that answers every other request; a page comes
 * back as UTF-8 bytes, transferred. What the database answers directly (counts for `/v0/status`,
 * the newest notice) is read here, through this process's connection. The thread starts with the
 * first question (`warm` asks one when the collection holds notices), so a server whose collection
 * is empty, or that is never asked about notices, spends nothing on it. A thread that fails is
 * replaced at the next question; the requests it held fail as an unavailable database (503).
 */
export class NoticeThread implements NoticeReader {
  readonly collection = NOTICES;
  readonly version: CollectionVersion;
  private readonly direct: NoticeStore;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Memory of pages sent, to go back to the thread with the next message, and its bytes. */
  private returned: ArrayBuffer[] = [];
  private returnedBytes = 0;
  /** Questions asked in this turn of the loop, posted together at its end (`flush`). */
  private outbox: NoticeThreadRequest[] = [];

  /**
   * `database`: this process's connection (for the version and the direct reads); `location` and
   * `options`: how the thread opens its own.
   */
  constructor(
    database: Database,
    private readonly options: NoticeThreadOptions,
  ) {
    this.direct = new NoticeStore(database);
    this.version = this.direct.version;
  }

  /**
   * How the thread opens the database at `location`: as this process does, with no read threads of
   * its own and a small page cache (it answers from the notices in memory and reads the tables only
   * to load them; SQLite's default for a connection without read threads, 64 MB, would keep the
   * loaded pages, about 11 MB for the 28,000 notices, for nothing).
   */
  static optionsFor(location: string, open: OpenOptions): NoticeThreadOptions {
    return { location, open: { ...open, readThreads: 0, poolSize: 2, cacheKib: NOTICE_THREAD_CACHE_KIB } };
  }

  async listBytes(request: NoticeListRequest, atVersion: number): Promise<Buffer> {
    const answer = await this.ask({ kind: "list", request, atVersion });
    if (!("bytes" in answer)) throw new Error("the notice thread answered a list without its text");
    return Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
  }

  /** Holds the page's memory for the thread, which takes it with the next question (a transfer, no copy). */
  release(body: Buffer): void {
    const memory = body.buffer as ArrayBuffer;
    if (body.byteOffset !== 0 || this.returnedBytes + memory.byteLength > RETURNED_BYTES) return;
    this.returned.push(memory);
    this.returnedBytes += memory.byteLength;
  }

  async export(query: NoticeQuery): Promise<NoticePage> {
    return (await this.result({ kind: "export", query })) as NoticePage;
  }

  async countGroups(query: NoticeCountQuery): Promise<CountResult> {
    return (await this.result({ kind: "counts", query })) as CountResult;
  }

  async findById(id: string): Promise<Notice | undefined> {
    return (await this.result({ kind: "find", noticeId: id })) as Notice | undefined;
  }

  /** Reads the notices into the thread, started for them; an empty collection leaves it unstarted. */
  async warm(): Promise<void> {
    if ((await this.direct.recordCount()) > 0) await this.result({ kind: "warm" });
  }

  recordCount(): Promise<number> {
    return this.direct.recordCount();
  }

  newestCreated(): Promise<string | undefined> {
    return this.direct.newestCreated();
  }

  newestCreatedAt(): Promise<number | undefined> {
    return this.direct.newestCreatedAt();
  }

  /** Stops the thread once its open questions are answered (for at most `CLOSE_GRACE_MS`); any still open fail. */
  async close(): Promise<void> {
    this.closed = true;
    const deadline = performance.now() + CLOSE_GRACE_MS;
    while (this.pending.size > 0 && performance.now() < deadline) await sleep(10);
    this.failPending(new Error("the notice thread is closed"));
    const worker = this.worker;
    this.worker = undefined;
    worker?.removeAllListeners();
    await worker?.terminate();
  }

  private async result(question: Question): Promise<unknown> {
    const answer = await this.ask(question);
    if (!("result" in answer))
      throw new Error(`the notice thread answered ${question.kind} without a result`);
    return answer.result;
  }

  private ask(question: Question): Promise<NoticeThreadAnswer> {
    if (this.closed) return Promise.reject(new Error("the notice thread is closed"));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: (answer) => {
          if ("refused" in answer) reject(new ApiError(answer.refused.code, answer.refused.details));
          else if ("error" in answer)
            reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
          else resolve(answer);
        },
        reject,
      });
      this.worker ??= this.start();
      if (this.pending.size === 1) this.worker.ref();
      if (this.outbox.length === 0) setImmediate(this.flush);
      this.outbox.push({ ...question, id } as NoticeThreadRequest);
    });
  }

  /**
   * Posts the questions asked since the last message, with the memory of the pages sent since:
   * one message for all the requests one poll of the loop read.
   */
  private readonly flush = (): void => {
    const questions = this.outbox;
    this.outbox = [];
    if (questions.length === 0) return;
    const recycled = this.returned;
    this.returned = [];
    this.returnedBytes = 0;
    this.worker ??= this.start();
    this.worker.postMessage({ questions, recycled } satisfies NoticeThreadMessage, recycled);
  };

  private start(): Worker {
    const worker = startWorker("notice-thread-worker", {
      workerData: this.options,
      resourceLimits: { maxOldGenerationSizeMb: NOTICE_THREAD_HEAP_MB, maxYoungGenerationSizeMb: 6 },
    });
    worker.on("message", (answers: NoticeThreadAnswer[]) => {
      for (const answer of answers) {
        const pending = this.pending.get(answer.id);
        this.pending.delete(answer.id);
        pending?.resolve(answer);
      }
      if (this.pending.size === 0) worker.unref();
    });
    worker.on("error", (err) => this.replace(err));
    worker.on("exit", () => this.replace(new Error("the notice thread stopped")));
    // The thread keeps its process alive only while a question is open (`ask`): an idle thread, or
    // one never closed, does not (after the listeners; see SqliteReadPool).
    worker.unref();
    return worker;
  }

  /** Drops a failed thread; the next question starts another (a thread that cannot start fails each question, not a loop). */
  private replace(err: Error): void {
    if (this.closed) return;
    this.worker?.removeAllListeners();
    this.worker = undefined;
    this.failPending(err);
  }

  private failPending(err: Error): void {
    this.outbox = [];
    for (const pending of this.pending.values())
      pending.reject(Object.assign(new Error(`notice thread: ${err.message}`), { code: "SQLITE_IOERR" }));
    this.pending.clear();
  }
}
