// The body of POST /api/v1/templates: multipart with the file in the part `file` (and an optional `name` field), held
// to TEMPLATE_MAX_BYTES while it streams in (and refused at once when its declared length is over), or JSON {url,
// name?}. Leaves res.locals.template = {bytes, filename, name} or {url, name}; the URL is fetched by the service.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import type { AppDeps } from '../context';
import { badRequest, parse } from '../errors';
import { jsonBody } from '../middleware/body';
import { templateMultipartFields, templateUrlBody } from './template-schemas';

export type TemplateBody =
  | { kind: 'file'; bytes: Buffer; filename: string; name?: string | undefined }
  | { kind: 'url'; url: string; name?: string | undefined };

const MULTIPART_OVERHEAD = 64 * 1024;
const MiB = (n: number) => `${Math.round((n / 1024 ** 2) * 10) / 10} MiB`;

/** 400 invalid_request, reason too_large: the file is over TEMPLATE_MAX_BYTES (as upload's 10 MB rule answers). */
export const templateTooLarge = (maxBytes: number, bytes?: number) =>
  badRequest(`The template file is larger than ${MiB(maxBytes)}, the size limit (TEMPLATE_MAX_BYTES)`, {
    reason: 'too_large',
    maxBytes,
    ...(bytes !== undefined ? { bytes } : {}),
  });

export function receiveTemplate(deps: AppDeps): RequestHandler {
  const maxBytes = deps.config.templates.maxBytes;
  const multipart = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 2, fieldSize: 1024, parts: 3, headerPairs: 50 },
  }).single('file');
  const json = jsonBody('8kb');

  const fromMultipart = (req: Request, res: Response, next: NextFunction) =>
    multipart(req, res, (err?: unknown) => {
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(templateTooLarge(maxBytes));
        if (err.code === 'LIMIT_UNEXPECTED_FILE')
          return next(
            badRequest(`Unexpected file part ${JSON.stringify(err.field ?? '')}: send the PSD in the part "file"`),
          );
        return next(badRequest(`Invalid multipart body: ${err.message}`));
      }
      if (err) return next(badRequest(`Malformed multipart body: ${(err as Error).message ?? 'cannot be parsed'}`));
      try {
        if (!req.file)
          throw badRequest('No file provided: send the .psd or .psb in a multipart form part named "file"');
        const fields = parse(templateMultipartFields, { ...(req.body as object) }, 'form fields');
        const body: TemplateBody = {
          kind: 'file',
          bytes: req.file.buffer,
          filename: req.file.originalname ?? '',
          name: fields.name,
        };
        res.locals.template = body;
        next();
      } catch (e) {
        next(e);
      }
    });

  return (req, res, next) => {
    if (req.is('multipart/form-data')) {
      const declared = Number(req.get('content-length'));
      if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD)
        return next(templateTooLarge(maxBytes));
      return fromMultipart(req, res, next);
    }
    if (req.is('application/json'))
      return json(req, res, (err?: unknown) => {
        if (err) return next(err);
        try {
          const b = parse(templateUrlBody, req.body);
          const body: TemplateBody = { kind: 'url', url: b.url, name: b.name };
          res.locals.template = body;
          next();
        } catch (e) {
          next(e);
        }
      });
    next(
      badRequest(
        'No file provided: send multipart/form-data with the PSD in a part named "file", or JSON {"url": "https://…/mockup.psd"}',
      ),
    );
  };
}

/** The template body receiveTemplate left. */
export const templateBody = (res: Response) => res.locals.template as TemplateBody;
