// Worker-thread entry: runs the pure pixel analysis off the event loop. Loaded by pool.ts only.
import { serveWorker } from '../images/worker-pool';
import { analysePixels } from './analyse-pixels';
import type { AnalysisTask } from './pool';

serveWorker((task: AnalysisTask) => ({ output: analysePixels(task.input, task.quantity) }));
