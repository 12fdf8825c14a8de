// Worker-thread entry: runs the pure pixel analysis off the event loop. Loaded by pool.ts only.
import { releaseNow, serveWorker } from '../images/worker-pool';
import { analyzePixels } from './analyze-pixels';
import type { AnalysisTask } from './pool';

serveWorker((task: AnalysisTask) => {
  const output = analyzePixels(task.input, task.quantity);
  // The input's pixels (~8 MB for a 2400x3000 design: the 512 px raster and the full-size alpha plane) are this
  // thread's alone, moved or cloned here, and the output holds none of them: freed now rather than whenever this
  // small isolate next collects. Until then they stayed allocated in the process's malloc arenas, between the API's
  // upload buffers (issue 34: the API's resident peak).
  releaseNow(task.input.data, task.input.alphaPlane);
  return { output };
});
