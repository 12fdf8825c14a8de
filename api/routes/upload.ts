// Part A design upload (spec "Upload", POST /upload). Free, keyed. Two request forms: multipart with the part
// `file`, or JSON `imageData` (a base64 data URL, or bare base64). The format is decided from the bytes only.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { receiveImage } from '../http/image-body';
import { partA } from '../middleware/part-a';
import { storeUpload } from '../services/uploads';

export function uploadRoutes(deps: AppDeps): Router {
  const r = Router();

  r.post('/upload', ...partA(deps, 'upload'), receiveImage, async (req, res) => {
    const upload = await storeUpload(deps, req.user!.id, res.locals.image as Buffer);
    req.log.info('upload stored', { uploadId: upload.id, bytes: upload.fileSize, mimeType: upload.mimeType });
    res.status(201).json(upload);
  });

  return r;
}
