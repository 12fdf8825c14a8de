import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Router, type Response } from 'express';
import { PREPARED_PREFIX } from '../../lib/images';
import { getStream } from '../../lib/storage';
import type { AppDeps } from '../context';
import { notFound } from '../errors';

/** A template's source PSD and prepared buffers (lib/template-import/types.ts templateKeys); its preview is public. */
const PRIVATE_TEMPLATE_FILE = /^templates\/[^/]+\/(source\.|prepared)/;

/** Bulk archives (archives/<bulk id>.zip): up to hundreds of MB, streamed from storage rather than read whole. */
const STREAMED = /^archives\/[^/]+\.zip$/;

/** An archive, streamed as storage gives it (no ETag: that would need the whole body; the key never changes). */
async function streamed(deps: AppDeps, key: string, res: Response): Promise<void> {
  let obj;
  try {
    obj = await getStream(deps.storage, key);
  } catch {
    obj = null;
  }
  if (!obj) throw notFound('File not found');
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type(obj.contentType);
  if (obj.size > 0) res.setHeader('Content-Length', String(obj.size));
  await pipeline(obj.body, res).catch(() => {
    // the client went away (or storage failed mid-body): the response is already under way, nothing to answer
    obj.body.destroy();
  });
}

/**
 * Public, unauthenticated file serving for uploads, blanks and mockups: these URLs are handed to clients as
 * `url`, `imageUrl`, `mockupUrl`. Every key is written once and never changed (new content gets a new key),
 * so the bytes can be cached for a year.
 */
export function fileRoutes(deps: AppDeps): Router {
  const r = Router();
  r.get('/files/*key', async (req, res) => {
    const parts = (req.params as unknown as { key: string[] }).key;
    const key = parts.join('/');
    if (STREAMED.test(key)) return void (await streamed(deps, key, res));
    let obj;
    try {
      // prepared design levels and templates are the worker's working data, and a template's PSD its owner's file:
      // none is a file of the service's API
      obj = key.startsWith(PREPARED_PREFIX) || PRIVATE_TEMPLATE_FILE.test(key) ? null : await deps.storage.get(key);
    } catch {
      obj = null; // an invalid key is simply not found
    }
    if (!obj) throw notFound('File not found');
    const etag = `"${createHash('sha1').update(obj.body).digest('base64url')}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.type(obj.contentType).send(obj.body);
  });
  return r;
}
