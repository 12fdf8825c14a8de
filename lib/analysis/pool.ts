// The pixel analysis runs on worker threads. Measured on a 2400x3000 design the JavaScript pixel work takes 5-60 ms
// of CPU on this hardware (see README), more than a request handler may hold the event loop; through the pool it
// costs the API thread one structured clone of a ~0.8 MB raster.
import path from 'node:path';
import { WorkerPool, type WorkerPoolOptions } from '../images/worker-pool';
import { analyzePixels, type PixelInput } from './analyze-pixels';

type Output = ReturnType<typeof analyzePixels>;
export interface AnalysisTask {
  input: PixelInput;
  quantity: number;
}

// Same extension as this file, so it works both from TypeScript sources (tsx) and from compiled JavaScript.
const WORKER_FILE = path.join(__dirname, `pixel-worker${path.extname(__filename)}`);

export class AnalysisPool {
  private readonly pool: WorkerPool<AnalysisTask, Output>;

  constructor(
    opts: Pick<
      WorkerPoolOptions<AnalysisTask, Output>,
      'size' | 'taskTimeoutMs' | 'maxQueue' | 'idleMs' | 'youngGenerationMb'
    > = {},
  ) {
    this.pool = new WorkerPool({
      youngGenerationMb: ANALYSIS_THREAD_YOUNG_MB,
      ...opts,
      file: WORKER_FILE,
      name: 'image analysis',
      inline: (t) => analyzePixels(t.input, t.quantity),
    });
  }

  /**
   * Runs the analysis on a worker. With `move`, the input's pixel buffers are transferred instead of copied: the
   * caller must own them outright (plain ArrayBuffers, not sharp's external memory) and must not touch them again.
   */
  run(input: PixelInput, quantity: number, opts: { move?: boolean } = {}): Promise<Output> {
    const transfer = opts.move
      ? [input.data.buffer, input.alphaPlane?.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
      : [];
    return this.pool.run({ input, quantity }, transfer);
  }

  get stats() {
    return this.pool.stats;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * The analysis thread's young generation, MiB. Each analysis allocates its short-lived arrays (the raster's colour
 * buffers, the palette's clusters) in a burst; with V8's default the thread's young generation grows to its maximum
 * and stays resident until the thread ends (ANALYSIS_THREAD_IDLE_MS): measured in the worker after a burst of 60
 * upload analyses, the thread's end gave back 48-58 MiB with the default and 27 MiB with 4 MiB, at the same CPU per
 * analysis (docs/benchmarks.md). The results do not depend on it.
 */
export const ANALYSIS_THREAD_YOUNG_MB = 4;

let shared: AnalysisPool | undefined;

/** The process's analysis thread is ended after this long without work (its isolate given back; issue 34). */
export const ANALYSIS_THREAD_IDLE_MS = 10_000;

/** The process-wide pool: every analysis of the process shares it (a second pool costs a second V8 isolate, ~36 MiB
 * resident). In the worker it serves the upload analysis workflow's activity (activities/upload-analysis.ts). */
export function analysisPool(): AnalysisPool {
  shared ??= new AnalysisPool({ idleMs: ANALYSIS_THREAD_IDLE_MS });
  return shared;
}
