// The answer of POST /generate and POST /generate/batch (and their Idempotency-Key recovery): 200 when every
// generation finished within the synchronous budget, else 202 with the body to poll. `Preference-Applied:
// respond-async` when the client asked for it (Prefer: respond-async); `Location` when there is one resource to poll.
import type { Request, Response } from 'express';
import { prefersAsync } from './schemas';

export function sendGenerateAnswer(
  req: Request,
  res: Response,
  body: unknown,
  opts: { finished: boolean; location?: string },
): void {
  if (opts.finished) {
    res.status(200).json(body);
    return;
  }
  if (opts.location) res.setHeader('Location', opts.location);
  if (prefersAsync(req.get('prefer'))) res.setHeader('Preference-Applied', 'respond-async');
  res.status(202).json(body);
}
