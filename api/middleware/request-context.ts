import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../lib/log';

const CLIENT_ID_RE = /^[A-Za-z0-9._:-]{1,100}$/;

/** Gives each request an id (the caller's X-Request-Id when it is sane), a child logger, and one access-log line. */
export function requestContext(log: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    req.id = given && CLIENT_ID_RE.test(given) ? given : randomUUID();
    req.log = log.child({ requestId: req.id });
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const fields = {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
        aborted: !res.writableFinished,
        ...(req.user ? { userId: req.user.id } : {}),
        ...(req.apiKeyId ? { apiKeyId: req.apiKeyId } : {}),
      };
      // probes and scrapes every few seconds: at debug level
      if (req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics')
        req.log.debug('request', fields);
      else req.log.info('request', fields);
    });
    next();
  };
}
