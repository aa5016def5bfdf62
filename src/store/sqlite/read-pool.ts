import type { Worker } from "node:worker_threads";
import type { RenderedRows, RowRendering } from "../../domain/row-rendering.js";
import type { ReadLaneFigures } from "../database.js";
import { startWorker } from "../start-worker.js";
import type { ReadAnswer, ReadRequest, ReadWorkerOptions } from "./read-worker.js";

/**
 * The young generation of each read worker's heap, in MB: what it allocates (rows, a page's text)
 * lives for one statement, so a small one is collected as cheaply and keeps the process's memory
 * within its budget (docs/deployment.md, Operations).
 */
const READ_WORKER_YOUNG_GENERATION_MB = 6;

/** Page cache of each read worker, in KiB (the file system caches the rest). */
const WORKER_CACHE_KIB = 4_096;

interface Job {
  readonly request: Omit<ReadRequest, "id">;
  readonly resolve: (result: unknown[] | RenderedRows) => void;
  readonly reject: (err: Error) => void;
}

/** One thread with its connection, running one job at a time. */
class ReadThread {
  private worker: Worker;
  private job: Job | undefined;
  private nextId = 0;

  constructor(
    private readonly options: ReadWorkerOptions,
    private readonly onIdle: (thread: ReadThread) => void,
  ) {
    this.worker = this.start();
  }

  get idle(): boolean {
    return this.job === undefined;
  }

  run(job: Job): void {
    this.job = job;
    this.worker.ref();
    this.worker.postMessage({ ...job.request, id: ++this.nextId } satisfies ReadRequest);
  }

  terminate(): Promise<number> {
    this.worker.removeAllListeners();
    return this.worker.terminate();
  }

  private start(): Worker {
    const worker = startWorker("sqlite/read-worker", {
      workerData: this.options,
      resourceLimits: { maxYoungGenerationSizeMb: READ_WORKER_YOUNG_GENERATION_MB },
    });
    worker.on("message", (answer: ReadAnswer) => {
      const job = this.job;
      this.job = undefined;
      worker.unref();
      if ("error" in answer)
        job?.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else job?.resolve("rendered" in answer ? answer.rendered : answer.rows);
      this.onIdle(this);
    });
    worker.on("error", (err) => this.replace(err));
    worker.on("exit", () => this.replace(new Error("a SQLite read worker stopped")));
    // A pool keeps its process alive only while a job is out (`run`): an idle pool, or one never
    // closed, does not. After the listeners, since adding a "message" listener references the
    // worker's port again (a pool closed before its workers had answered once then kept its process
    // from exiting).
    worker.unref();
    return worker;
  }

  /** A worker that failed is replaced; its job fails as an unavailable database (a 503). */
  private replace(err: Error): void {
    this.worker.removeAllListeners();
    const job = this.job;
    this.job = undefined;
    job?.reject(Object.assign(new Error(`SQLite read worker: ${err.message}`), { code: "SQLITE_IOERR" }));
    this.worker = this.start();
    this.onIdle(this);
  }
}

/** Threads sharing one queue, first come first served. */
class Lane {
  private readonly queue: Job[] = [];
  private readonly threads: ReadThread[];
  private statements = 0;

  constructor(
    private readonly name: ReadLaneFigures["lane"],
    options: ReadWorkerOptions,
    threads: number,
  ) {
    this.threads = Array.from(
      { length: threads },
      () => new ReadThread(options, (thread) => this.next(thread)),
    );
  }

  figures(): ReadLaneFigures {
    return {
      lane: this.name,
      threads: this.threads.length,
      busy: this.threads.filter((thread) => !thread.idle).length,
      waiting: this.queue.length,
      statements: this.statements,
    };
  }

  run(request: Omit<ReadRequest, "id">): Promise<unknown[] | RenderedRows> {
    this.statements++;
    return new Promise((resolve, reject) => {
      const job = { request, resolve, reject };
      const idle = this.threads.find((thread) => thread.idle);
      if (idle) idle.run(job);
      else this.queue.push(job);
    });
  }

  async close(): Promise<void> {
    const closed = new Error("the database is closed");
    for (const job of this.queue.splice(0)) job.reject(closed);
    await Promise.all(this.threads.map((thread) => thread.terminate()));
  }

  private next(thread: ReadThread): void {
    const job = this.queue.shift();
    if (job) thread.run(job);
  }
}

/**
 * SQLite reads off the event loop: selects run on worker threads, each with a read-only
 * connection to the file, so a costly statement never holds the loop that answers every other
 * request. Two lanes keep cheap requests cheap beside costly ones: every select starts in the
 * quick lane under a short budget (`QUICK_READ_BUDGET_MS` by default); one that outruns it is interrupted there and run again in
 * the long lane (one thread) under the request budget, so costly statements queue behind each
 * other, not in front of cheap ones.
 */
export class SqliteReadPool {
  private readonly quick: Lane;
  private readonly long: Lane;

  /**
   * `threads` (at least 2): all but one serve the quick lane, one the long lane.
   * `budgetMs`: the request budget of each statement (undefined: unbounded); `quickBudgetMs`, the
   * quick lane's.
   */
  constructor(file: string, threads: number, budgetMs: number | undefined, quickBudgetMs: number) {
    if (threads < 2)
      throw new Error("a SQLite read pool needs at least 2 threads (a quick lane and a long one)");
    const quickLaneBudgetMs = budgetMs === undefined ? quickBudgetMs : Math.min(quickBudgetMs, budgetMs);
    this.quick = new Lane(
      "quick",
      { file, budgetMs: quickLaneBudgetMs, cacheKib: WORKER_CACHE_KIB },
      threads - 1,
    );
    this.long = new Lane("long", { file, budgetMs, cacheKib: WORKER_CACHE_KIB }, 1);
  }

  /** The rows of a select, as objects or as arrays of the selected values. */
  async select(sql: string, parameters: readonly unknown[], rowsAsArrays: boolean): Promise<unknown[]> {
    return (await this.run({ sql, parameters, rowsAsArrays })) as unknown[];
  }

  /** The rows of a select written as text on the worker that read them (see `RowRendering`). */
  async selectRendered(
    sql: string,
    parameters: readonly unknown[],
    rendering: RowRendering,
  ): Promise<RenderedRows> {
    return (await this.run({ sql, parameters, rowsAsArrays: true, rendering })) as RenderedRows;
  }

  private async run(request: Omit<ReadRequest, "id">): Promise<unknown[] | RenderedRows> {
    try {
      return await this.quick.run(request);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "SQLITE_INTERRUPT") throw err;
      return this.long.run(request);
    }
  }

  figures(): ReadLaneFigures[] {
    return [this.quick.figures(), this.long.figures()];
  }

  async close(): Promise<void> {
    await Promise.all([this.quick.close(), this.long.close()]);
  }
}
