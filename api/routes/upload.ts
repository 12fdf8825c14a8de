// Part A design upload (spec "Upload", POST /upload). Free, keyed. Two request forms: multipart with the part
// `file`, or JSON `imageData` (a base64 data URL, or bare base64). The format is decided from the bytes only.
// Storage per account is limited (413 storage_quota_exceeded) and the same bytes are stored once per account and mode.
// The upload takes its library name from the file name (multipart) or `name` (JSON), and the worker analyses it
// (workflow upload-analysis-<id>) so that its latest analysis (and the inks the contrast checks read) is there by its
// first generate.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { receiveImage } from '../http/image-body';
import { isLive } from '../http/mode';
import { idempotent } from '../middleware/idempotency';
import { partA } from '../middleware/part-a';
import { storeUpload } from '../services/uploads';
import { nameFromFile } from '../services/upload-library';

export function uploadRoutes(deps: AppDeps): Router {
  const r = Router();

  // Idempotency-Key: the fingerprint is the image's bytes, the same whichever form carried them (a multipart
  // boundary differs from one try to the next). An upload charges nothing, so it keeps no recovery point.
  const idempotency = idempotent(deps, { body: (_req, res) => res.locals.image as Buffer | undefined });

  r.post('/upload', ...partA(deps, 'upload'), receiveImage, idempotency, async (req, res) => {
    const image = res.locals.image as Buffer;
    const name = req.file ? nameFromFile(req.file.originalname) : (req.body as { name?: string } | undefined)?.name;
    const { upload, created } = await storeUpload(deps, req.user!.id, image, {
      name,
      livemode: isLive(req),
      log: req.log,
    });
    req.log.info(created ? 'upload stored' : 'upload already stored', {
      uploadId: upload.id,
      bytes: upload.fileSize,
      mimeType: upload.mimeType,
    });
    // 201 for a new upload; 200 with the account's earlier upload when it sent the same bytes again
    res.status(created ? 201 : 200).json(upload);
  });

  return r;
}
