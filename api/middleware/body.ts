import express from 'express';

/**
 * JSON body parser for one route. Strict (objects and arrays only); malformed JSON becomes a 400 in the envelope.
 * The bytes as received stay in req.rawBody (the Idempotency-Key fingerprint hashes them).
 */
export const jsonBody = (limit = '100kb') =>
  express.json({
    limit,
    strict: true,
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
