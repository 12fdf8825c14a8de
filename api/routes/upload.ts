// Part A design upload (spec "Upload", POST /upload). Free, keyed. Two request forms: multipart with the part
// `file`, or JSON `imageData` (a base64 data URL, or bare base64). The format is decided from the bytes only.
import { webcrypto } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { timeId } from '../../lib/ids';
import {
  decodeImageJson,
  decoding,
  encodePrepared,
  ImageError,
  inspectImage,
  isImageError,
  makeThumbnailFromRaw,
  MAX_IMAGE_BYTES,
  MAX_INPUT_PIXELS,
  openImage,
  preparedKey,
  prepareDesignLevels,
  makeThumbnail,
  WorkerPoolBusyError,
} from '../../lib/images';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { ApiError, badRequest, parse } from '../errors';
import { partA } from '../middleware/part-a';

const MAX_MB = MAX_IMAGE_BYTES / (1024 * 1024);
const tooLarge = () =>
  badRequest(`The image is larger than ${MAX_MB} MB, the size limit`, {
    reason: 'too_large',
    maxBytes: MAX_IMAGE_BYTES,
  });

/** Image work is queued on worker threads; when the queue is full the client is told to come back, not kept waiting. */
export function busy(err: unknown): unknown {
  if (!(err instanceof WorkerPoolBusyError)) return err;
  return new ApiError(
    503,
    'service_unavailable',
    'Image processing is at capacity: retry in a few seconds',
    { retryAfter: 5 },
    { 'Retry-After': '5' },
  );
}

/** Base64 grows data by 4/3; the JSON limit admits a 10 MB image's data URL plus a little envelope, no more. */
export const JSON_IMAGE_BODY_LIMIT = Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64 * 1024;
/** Multipart framing (boundaries, part headers) on top of the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

const jsonBody = z.strictObject({
  imageData: z
    .string({
      message: 'is required: a base64 data URL of the image (or send multipart/form-data with a part named file)',
    })
    .min(1, 'must not be empty'),
});

/**
 * Turns anything wrong with the image into 400 invalid_request whose message names the problem; `context` prefixes
 * it (e.g. which input was at fault). Other errors pass through unchanged.
 */
export function imageProblem(err: unknown, context?: string): unknown {
  if (!isImageError(err)) return err;
  // Lower-case the first letter after the context, but not an acronym ("SVG images ...").
  const lowered = /^[A-Z][a-z]/.test(err.message)
    ? `${err.message[0]!.toLowerCase()}${err.message.slice(1)}`
    : err.message;
  const message = context ? `${context}: ${lowered}` : err.message;
  return badRequest(message, { reason: err.reason, ...err.details });
}

/**
 * Refuses a request whose declared length already exceeds the limit, before reading any of it. Bodies without a
 * Content-Length (chunked) are still cut off by the parsers' own limits while streaming.
 */
export function refuseDeclaredLength(limit: number): RequestHandler {
  return (req, _res, next) => {
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) return next(tooLarge());
    next();
  };
}

/**
 * JSON body carrying a base64 image in `field`. The raw body is collected with the size limit (answering 400
 * invalid_request like every other size rule, not 413), then parsed and decoded by decodeImageJson, which moves
 * large bodies off the event loop. Leaves the parsed body in req.body (the image replaced by a placeholder string, so
 * schemas still see a string), the decoded bytes in res.locals.image, or the decoding problem in res.locals.imageError.
 */
export function imageJsonBody(field: string): RequestHandler {
  const collect = express.raw({ type: 'application/json', limit: JSON_IMAGE_BODY_LIMIT });
  return (req, res, next) =>
    collect(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') return next(tooLarge());
      if (err) return next(err);
      if (!Buffer.isBuffer(req.body)) {
        req.body = undefined;
        return next();
      }
      decodeImageJson(req.body, field).then(
        (parsed) => {
          if (parsed.kind === 'malformed_json') return next(badRequest('Malformed JSON body'));
          req.body = parsed.body;
          if (parsed.image)
            res.locals.image = Buffer.from(parsed.image.buffer, parsed.image.byteOffset, parsed.image.byteLength);
          if (parsed.imageError)
            res.locals.imageError = new ImageError(
              parsed.imageError.reason,
              parsed.imageError.message,
              parsed.imageError.details,
            );
          next();
        },
        (e: unknown) => next(busy(e)),
      );
    });
}

/** The image decoded by imageJsonBody, or its decoding problem as a 400 (prefixed with `context`). */
export function decodedImage(res: Response, context?: string): Buffer {
  if (res.locals.imageError) throw imageProblem(res.locals.imageError, context);
  const image = res.locals.image as Buffer | undefined;
  if (!image) throw new Error('imageJsonBody did not decode an image'); // the schema guarantees a string was sent
  return image;
}

const multipart = multer({
  storage: multer.memoryStorage(),
  // fileSize makes busboy stop (and multer fail) as soon as the file passes 10 MB while it streams in.
  limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 6, headerPairs: 50 },
}).single('file');

function multipartUpload(req: Request, res: Response, next: NextFunction): void {
  multipart(req, res, (err?: unknown) => {
    if (!err) return next();
    if (err instanceof multer.MulterError) {
      switch (err.code) {
        case 'LIMIT_FILE_SIZE':
          return next(tooLarge());
        case 'LIMIT_UNEXPECTED_FILE':
          return next(
            badRequest(
              `Unexpected file part ${JSON.stringify(err.field ?? '')}: send exactly one image, in the form part named "file"`,
            ),
          );
        default:
          return next(badRequest(`Invalid multipart body: ${err.message}`));
      }
    }
    // busboy's parse errors ("Unexpected end of form", "Malformed part header", ...).
    next(badRequest(`Malformed multipart body: ${(err as Error).message ?? 'cannot be parsed'}`));
  });
}

const refuseLargeMultipart = refuseDeclaredLength(MAX_IMAGE_BYTES + MULTIPART_OVERHEAD);
const refuseLargeJson = refuseDeclaredLength(JSON_IMAGE_BODY_LIMIT);
const uploadJson = imageJsonBody('imageData');

/** Accepts either request form and leaves the image bytes in res.locals.image. */
const receiveImage: RequestHandler = (req, res, next) => {
  if (req.is('multipart/form-data')) {
    return refuseLargeMultipart(req, res, (err?: unknown) => {
      if (err) return next(err);
      multipartUpload(req, res, (e?: unknown) => {
        if (e) return next(e);
        if (!req.file)
          return next(badRequest('No file provided: send the image in a multipart form part named "file"'));
        res.locals.image = req.file.buffer;
        next();
      });
    });
  }
  if (req.is('application/json')) {
    return refuseLargeJson(req, res, (err?: unknown) => {
      if (err) return next(err);
      uploadJson(req, res, (e?: unknown) => {
        if (e) return next(e);
        try {
          parse(jsonBody, req.body);
          res.locals.image = decodedImage(res);
          next();
        } catch (er) {
          next(er);
        }
      });
    });
  }
  next(
    badRequest(
      `No file provided: send multipart/form-data with the image in a part named "file", or JSON {"imageData": "data:image/png;base64,..."}`,
    ),
  );
};

interface Stored {
  key: string;
  thumbKey: string;
}

export function uploadRoutes(deps: AppDeps): Router {
  const r = Router();

  r.post('/upload', ...partA(deps, 'upload'), receiveImage, async (req, res) => {
    const bytes: Buffer = res.locals.image;
    const userId = req.user!.id;
    let info;
    let thumb;
    let dims;
    let prepared: Buffer | null = null;
    try {
      info = inspectImage(bytes); // format from magic bytes, pixel bombs refused from the header
      const meta = await decoding(() => openImage(bytes).metadata());
      // As displayed: EXIF rotation applied, like the thumbnail and every browser.
      const upright = { width: meta.autoOrient?.width ?? info.width, height: meta.autoOrient?.height ?? info.height };
      dims = upright;
      // Every pixel is decoded, strictly (truncated or corrupt data fails here), into the design levels the worker
      // composites from: stored beside the upload, they spare the design's first generations the decode
      // (lib/images/design-levels.ts). The thumbnail is made from the smallest. Designs too small for any level
      // are decoded for the thumbnail alone.
      const levels = await decoding(() =>
        prepareDesignLevels(bytes, upright, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' }),
      );
      if (levels) {
        prepared = encodePrepared(levels);
        thumb = await makeThumbnailFromRaw([...levels.levels.values()].at(-1)!);
      } else {
        thumb = await makeThumbnail(bytes);
      }
    } catch (err) {
      throw imageProblem(err);
    }

    const id = timeId('upl');
    const stored: Stored = { key: `uploads/${id}.${info.ext}`, thumbKey: `uploads/${id}.thumb.${thumb.ext}` };
    // WebCrypto hashes on the libuv pool, so 10 MB is not hashed on the event loop.
    const sha256 = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes));
    await Promise.all([
      deps.storage.put(stored.key, bytes, info.mimeType),
      deps.storage.put(stored.thumbKey, thumb.body, thumb.mimeType),
      ...(prepared ? [deps.storage.put(preparedKey(stored.key), prepared, 'application/octet-stream')] : []),
    ]);
    try {
      await deps.sql`
        insert into uploads (id, user_id, storage_key, thumbnail_key, mime_type, size_bytes, width, height, sha256)
        values (${id}, ${userId}, ${stored.key}, ${stored.thumbKey}, ${info.mimeType}, ${bytes.length}, ${dims.width}, ${dims.height}, ${sha256})`;
    } catch (err) {
      // Without its row the upload belongs to no one: do not leave the files behind.
      await Promise.allSettled([
        deps.storage.delete(stored.key),
        deps.storage.delete(stored.thumbKey),
        deps.storage.delete(preparedKey(stored.key)),
      ]);
      throw err;
    }
    req.log.info('upload stored', { uploadId: id, bytes: bytes.length, mimeType: info.mimeType });
    res.status(201).json({
      id,
      url: fileUrl(deps.config, stored.key),
      thumbnailUrl: fileUrl(deps.config, stored.thumbKey),
      dimensions: dims,
      fileSize: bytes.length,
      mimeType: info.mimeType,
    });
  });

  return r;
}
