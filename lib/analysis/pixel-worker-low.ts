// Worker-thread entry for analyses that can wait (a new upload's, made after its answer): the same pixel work as
// pixel-worker.ts on a thread that lowers its own priority first (on Linux a thread's nice value is its own), so it
// takes the CPU the requests being answered leave. Loaded by pool.ts only.
import os from 'node:os';
import { serveWorker } from '../images/worker-pool';
import { analyzePixels } from './analyze-pixels';
import type { AnalysisTask } from './pool';

try {
  os.setPriority(19);
} catch {
  // not allowed here: the work is the same at the usual priority
}
serveWorker((task: AnalysisTask) => ({ output: analyzePixels(task.input, task.quantity) }));
