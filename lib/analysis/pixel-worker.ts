// Worker-thread entry: runs the pure pixel analysis off the event loop. Loaded by pool.ts only.
import { serveWorker } from '../images/worker-pool';
import { analyzePixels } from './analyze-pixels';
import type { AnalysisTask } from './pool';

serveWorker((task: AnalysisTask) => ({ output: analyzePixels(task.input, task.quantity) }));
