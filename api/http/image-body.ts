// Request bodies that carry an image (POST /upload, POST /analyze): the JSON form with a base64 data URL decoded off
// the event loop, the multipart form with a part named `file`, the 10 MB limit checked before reading, and the
// mapping of image problems to 400 invalid_request.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import {
  decodeImageJson,
  ImageError,
  isImageError,
  MAX_IMAGE_BYTES,
  MAX_NON_IMAGE_JSON_BYTES,
  WorkerPoolBusyError,
} from '../../lib/images';
import { ApiError, badInputFrom, badRequest, parse, serviceUnavailable } from '../errors';
import { uploadJsonBody } from './schemas';

const MAX_MB = MAX_IMAGE_BYTES / (1024 * 1024);
const tooLarge = () =>
  badRequest(`The image is larger than ${MAX_MB} MB, the size limit`, {
    reason: 'too_large',
    maxBytes: MAX_IMAGE_BYTES,
  });

/** Image work is queued on worker threads; when the queue is full the client is told to come back, not kept waiting. */
export function busy(err: unknown): unknown {
  if (!(err instanceof WorkerPoolBusyError)) return err;
  return serviceUnavailable('Image processing is at capacity: retry in a few seconds', 5);
}

/** Base64 grows data by 4/3; the JSON limit admits a 10 MB image's data URL plus a little envelope, no more. */
export const JSON_IMAGE_BODY_LIMIT = Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64 * 1024;
/** Multipart framing (boundaries, part headers) on top of the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * Turns anything wrong with the image into 400 invalid_request whose message names the problem; `context` prefixes
 * it (e.g. which input was at fault). Other errors pass through unchanged.
 */
export function imageProblem(err: unknown, context?: string): unknown {
  return isImageError(err) ? badInputFrom(err, context) : err;
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
          if (parsed.kind === 'too_complex') {
            return next(
              new ApiError(
                413,
                'payload_too_large',
                `Request body too large: only the image may be large; the other fields together must stay under ${MAX_NON_IMAGE_JSON_BYTES / 1024} KB`,
                { maxNonImageBytes: MAX_NON_IMAGE_JSON_BYTES },
              ),
            );
          }
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
export const receiveImage: RequestHandler = (req, res, next) => {
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
          parse(uploadJsonBody, req.body);
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
