// How long the API has been answering nothing: work that can wait (a new upload's analysis,
// services/upload-library.ts) starts in such a moment rather than beside a request being answered.
import type { RequestHandler } from 'express';

let inFlight = 0;
let quietSince = Date.now();

/** Counts the requests being answered (mounted first, before anything that may answer). */
export const trackRequests: RequestHandler = (_req, res, next) => {
  inFlight++;
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    if (--inFlight === 0) quietSince = Date.now();
  };
  res.once('finish', end);
  res.once('close', end);
  next();
};

/** Milliseconds since the last request of this process was answered; 0 while one is being answered. */
export const quietForMs = (): number => (inFlight > 0 ? 0 : Date.now() - quietSince);
