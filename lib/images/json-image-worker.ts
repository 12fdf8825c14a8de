// Worker-thread entry for JSON image bodies (see json-image.ts).
import { parseImageJson, type ImageJsonInput } from './json-image';
import { serveWorker } from './worker-pool';

serveWorker((input: ImageJsonInput) => {
  const output = parseImageJson(input);
  return { output, transfer: output.kind === 'ok' && output.image ? [output.image.buffer as ArrayBuffer] : [] };
});
