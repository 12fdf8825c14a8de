// A small pool of worker threads for CPU-bound work that must not run on the event loop (pixel analysis, parsing
// and base64-decoding 14 MB JSON bodies). Workers start lazily, are unref'd while idle so they never keep a process
// alive, and are replaced if one crashes or overruns its time limit. Each worker file calls serveWorker(handler).
import os from 'node:os';
import { parentPort, Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';

interface Task<I, O> {
  id: number;
  input: I;
  transfer: Transferable[];
  resolve: (o: O) => void;
  reject: (e: Error) => void;
}

interface Slot<I, O> {
  worker: Worker;
  task: Task<I, O> | null;
  timer?: NodeJS.Timeout;
  /** ends the worker once it has been idle for idleMs */
  idle?: NodeJS.Timeout;
}

/** The pool's queue is full: the caller should answer "busy, retry shortly" rather than wait without bound. */
export class WorkerPoolBusyError extends Error {
  override readonly name = 'WorkerPoolBusyError';
}

type Reply<O> = { id: number; ok: true; output: O } | { id: number; ok: false; error: string };

export interface WorkerPoolOptions<I, O> {
  /** Absolute path of the worker module (it must call serveWorker). */
  file: string;
  /** Default: one core left to the event loop and libvips, at least one worker, at most two. */
  size?: number;
  /** A task that runs longer than this is abandoned and its worker replaced. */
  taskTimeoutMs?: number;
  /** Tasks waiting for a worker beyond this are refused with WorkerPoolBusyError (default 64). */
  maxQueue?: number;
  /** A worker idle this long is ended, its V8 isolate (~25-36 MiB resident) given back; the next task starts one
   * again (tens of ms). Default: never. */
  idleMs?: number;
  /** Largest young generation of a worker's V8 heap, MiB (default: V8's, sized for a process's main thread). A
   * thread whose tasks allocate short-lived arrays in bursts otherwise keeps a young generation grown to V8's
   * maximum, resident while it lives. */
  youngGenerationMb?: number;
  /** What the task is, for error messages. */
  name: string;
  /** The same work on the calling thread, used only if this runtime cannot start workers at all. */
  inline: (input: I) => O;
}

export class WorkerPool<I, O> {
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly slots: Slot<I, O>[] = [];
  private readonly queue: Task<I, O>[] = [];
  private nextId = 1;
  private inline = false;
  private readonly done = { worker: 0, inline: 0 };
  private readonly threads = new Set<number>();

  constructor(private readonly opts: WorkerPoolOptions<I, O>) {
    this.size = opts.size ?? Math.min(2, Math.max(1, os.availableParallelism() - 1));
    this.timeoutMs = opts.taskTimeoutMs ?? 30_000;
  }

  /** Tasks completed on worker threads and inline, and the worker thread ids used (for tests and monitoring). */
  get stats(): {
    completedOnWorkers: number;
    completedInline: number;
    workerThreadIds: number[];
    /** the V8 heap limits the live threads run with (each thread's, as node:worker_threads reports them) */
    resourceLimits: ResourceLimits[];
  } {
    return {
      completedOnWorkers: this.done.worker,
      completedInline: this.done.inline,
      workerThreadIds: [...this.threads],
      resourceLimits: this.slots.map((s) => ({ ...s.worker.resourceLimits })),
    };
  }

  /** Runs one task; `transfer` lists buffers to move to the worker instead of copying them. */
  run(input: I, transfer: Transferable[] = []): Promise<O> {
    if (this.inline) {
      return Promise.resolve().then(() => {
        const out = this.opts.inline(input);
        this.done.inline++;
        return out;
      });
    }
    if (this.queue.length >= (this.opts.maxQueue ?? 64)) {
      return Promise.reject(
        new WorkerPoolBusyError(`${this.opts.name} is at capacity (${this.queue.length} tasks waiting)`),
      );
    }
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; queued and running tasks fail. */
  async close(): Promise<void> {
    const err = new Error(`${this.opts.name} pool closed`);
    for (const t of this.queue.splice(0)) t.reject(err);
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.task) s.task.reject(err);
        clearTimeout(s.timer);
        clearTimeout(s.idle);
        return s.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift()!;
      const s = slot;
      clearTimeout(s.idle);
      s.task = task;
      s.worker.ref();
      s.timer = setTimeout(
        () => this.fail(s, new Error(`${this.opts.name} took longer than ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      s.worker.postMessage({ id: task.id, input: task.input }, task.transfer);
    }
  }

  private spawn(): Slot<I, O> | undefined {
    let worker: Worker;
    try {
      worker = new Worker(this.opts.file, {
        resourceLimits: {
          maxOldGenerationSizeMb: 256,
          ...(this.opts.youngGenerationMb ? { maxYoungGenerationSizeMb: this.opts.youngGenerationMb } : {}),
        },
      });
    } catch {
      // No worker support in this runtime (not expected on Node 22): do the work inline rather than fail requests.
      this.inline = true;
      for (const t of this.queue.splice(0)) this.run(t.input).then(t.resolve, t.reject);
      return undefined;
    }
    worker.unref();
    const slot: Slot<I, O> = { worker, task: null };
    worker.on('message', (res: Reply<O>) => {
      const task = slot.task;
      if (!task || task.id !== res.id) return;
      clearTimeout(slot.timer);
      slot.task = null;
      worker.unref();
      if (res.ok) {
        this.done.worker++;
        this.threads.add(worker.threadId);
        task.resolve(res.output);
      } else task.reject(new Error(`${this.opts.name} failed: ${res.error}`));
      this.dispatch();
      if (slot.task === null && this.opts.idleMs !== undefined) {
        slot.idle = setTimeout(() => this.retire(slot), this.opts.idleMs);
        slot.idle.unref();
      }
    });
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', (code) => this.fail(slot, new Error(`${this.opts.name} worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  /** Ends an idle worker (its exit is then no failure: the slot is gone). */
  private retire(slot: Slot<I, O>): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || slot.task) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  private fail(slot: Slot<I, O>, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.idle);
    const task = slot.task;
    slot.task = null;
    void slot.worker.terminate();
    if (task) task.reject(err);
    this.dispatch();
  }
}

/**
 * Worker side: answers each task with handler(input). The handler may name buffers of its output to transfer back
 * (zero-copy) instead of cloning them.
 */
export function serveWorker<I, O>(handler: (input: I) => { output: O; transfer?: Transferable[] }): void {
  parentPort?.on('message', (msg: { id: number; input: I }) => {
    try {
      const { output, transfer } = handler(msg.input);
      parentPort!.postMessage({ id: msg.id, ok: true, output } satisfies Reply<O>, transfer ?? []);
    } catch (err) {
      parentPort!.postMessage({
        id: msg.id,
        ok: false,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      } satisfies Reply<O>);
    }
  });
}

/** ES2024's ArrayBuffer.prototype.transfer (Node 22), not in this project's ES2023 typings. */
type Transferable2024 = ArrayBuffer & { readonly detached: boolean; transfer(length: number): ArrayBuffer };

/**
 * Frees the memory behind each view now (ArrayBuffer.prototype.transfer(0) detaches it), rather than whenever its
 * isolate next collects: for pixel buffers of megabytes that nothing reads again, which otherwise stay allocated
 * between other requests' buffers and raise the process's resident size (issue 34). Only a view over its whole
 * buffer is freed (never a slice of a shared one); detached, absent or undetachable ones are left to the collector.
 */
export function releaseNow(...views: (ArrayBufferView | undefined)[]): void {
  for (const v of views) {
    const b = v?.buffer;
    if (!(b instanceof ArrayBuffer) || v!.byteOffset !== 0 || v!.byteLength !== b.byteLength) continue;
    try {
      if (!(b as Transferable2024).detached) (b as Transferable2024).transfer(0);
    } catch {
      // not detachable here: freed at the next collection, as before
    }
  }
}
