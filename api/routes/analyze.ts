// Part A printability analysis (spec "Analysis result", POST /analyze). Free, keyed. The image comes from exactly one
// of imageUrl (our own files read from storage, anything else through the SSRF-guarded fetcher) and imageData.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { badRequest, parse } from '../errors';
import { partA } from '../middleware/part-a';
import { decodedImage, imageJsonBody, JSON_IMAGE_BODY_LIMIT, refuseDeclaredLength } from '../http/image-body';
import { analyzeBody } from '../http/schemas';
import { analyzeBytes, analyzeUrl, oneImageSource } from '../services/analysis';
import { ownUploadAnalysis } from '../services/upload-library';

const DATA_PROBLEM = 'imageData is not a usable image';

export function analyzeRoutes(deps: AppDeps): Router {
  const r = Router();

  r.post(
    '/analyze',
    ...partA(deps, 'analyze'),
    refuseDeclaredLength(JSON_IMAGE_BODY_LIMIT),
    imageJsonBody('imageData'),
    async (req, res) => {
      if (!req.is('application/json'))
        throw badRequest(
          'Send a JSON body (Content-Type: application/json) with imageUrl or imageData, and optionally quantity',
        );
      const body = parse(analyzeBody, req.body);
      oneImageSource(body);

      if (body.imageData !== undefined) {
        res.json(await analyzeBytes(decodedImage(res, DATA_PROBLEM), body.quantity, DATA_PROBLEM));
      } else {
        // One of the caller's uploads: analysed from storage and kept as its latest analysis (the design library).
        const own = await ownUploadAnalysis(deps, req.user!.id, body.imageUrl!, body.quantity);
        res.json(own ?? (await analyzeUrl(deps, body.imageUrl!, body.quantity)));
      }
    },
  );

  return r;
}
