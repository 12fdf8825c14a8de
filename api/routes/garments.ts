// Part A garment catalogue (spec "Garment", GET /garments, GET /garments/<id>). Free, but needs a key.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { partA } from '../middleware/part-a';
import { garmentListQuery } from '../http/schemas';
import { garmentById, garmentPage } from '../services/garments';

export function garmentRoutes(deps: AppDeps): Router {
  const r = Router();
  const auth = partA(deps, 'garments');

  r.get('/garments', ...auth, async (req, res) => {
    res.json(await garmentPage(deps, parse(garmentListQuery, req.query, 'query')));
  });

  r.get('/garments/:garmentId', ...auth, async (req, res) => {
    res.json(await garmentById(deps, req.params.garmentId));
  });

  return r;
}
