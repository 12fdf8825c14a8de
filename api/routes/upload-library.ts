// The design library (issue 35): GET /uploads (newest first, cursor pages, q filters by name), GET /uploads/{id},
// GET /uploads/{id}/contrast?garmentId= (the design on each colour), PATCH /uploads/{id} {name}, DELETE /uploads/{id} (204; files erased at once). Free, keyed; a key (or the dashboard's
// mode) sees only its own mode's uploads.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { isLive } from '../http/mode';
import { contrastQuery, renameUploadBody, uploadListQuery } from '../http/upload-library-schemas';
import { garmentContrast } from '../services/design-warnings';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { DEFAULT_PAGE_LIMIT } from '../pagination';
import {
  deleteOwnUpload,
  presentLibraryUpload,
  readUpload,
  renameOwnUpload,
  uploadPage,
} from '../services/upload-library';

const uploadId = (raw: unknown) => (typeof raw === 'string' && raw.length <= 100 ? raw : '');

export function uploadLibraryRoutes(deps: AppDeps): Router {
  const r = Router();
  const auth = partA(deps);

  r.get('/uploads', ...auth, async (req, res) => {
    const q = parse(uploadListQuery, req.query, 'query');
    const { page, pagination } = await uploadPage(deps, req.user!.id, isLive(req), {
      q: q.q,
      cursor: q.cursor,
      limit: q.limit ?? DEFAULT_PAGE_LIMIT,
    });
    res.json({ uploads: page.map((u) => presentLibraryUpload(deps, u)), pagination });
  });

  r.get('/uploads/:id', ...auth, async (req, res) => {
    res.json(presentLibraryUpload(deps, await readUpload(deps, req.user!.id, uploadId(req.params.id), isLive(req))));
  });

  r.get('/uploads/:id/contrast', ...auth, async (req, res) => {
    const { garmentId } = parse(contrastQuery, req.query, 'query');
    res.json(await garmentContrast(deps, req.user!.id, uploadId(req.params.id), isLive(req), garmentId));
  });

  r.patch('/uploads/:id', ...auth, jsonBody(), async (req, res) => {
    const { name } = parse(renameUploadBody, req.body);
    const row = await renameOwnUpload(deps, req.user!.id, uploadId(req.params.id), isLive(req), name);
    req.log.info('upload renamed', { uploadId: row.id });
    res.json(presentLibraryUpload(deps, row));
  });

  r.delete('/uploads/:id', ...auth, async (req, res) => {
    const id = uploadId(req.params.id);
    await deleteOwnUpload(deps, req.user!.id, id, isLive(req));
    req.log.info('upload deleted', { uploadId: id });
    res.status(204).end();
  });

  return r;
}
