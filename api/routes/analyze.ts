// Part A printability analysis (spec "Analysis result", POST /analyze). Free, keyed. The image comes from exactly one
// of imageUrl (our own files read from storage, anything else through the SSRF-guarded fetcher) and imageData.
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../context';
import { badRequest, parse } from '../errors';
import { partA } from '../middleware/part-a';
import { decodedImage, imageJsonBody, JSON_IMAGE_BODY_LIMIT, refuseDeclaredLength } from '../http/image-body';
import { analyzeBytes, analyzeUrl } from '../services/analysis';

const DATA_PROBLEM = 'imageData is not a usable image';

const QUANTITY = 'must be a whole number from 1 to 10000';

const analyzeBody = z.strictObject({
  imageUrl: z
    .string({ message: 'must be a string: the public URL of the image' })
    .trim()
    .min(1, 'must not be empty')
    .max(2048, 'must be at most 2048 characters')
    .refine((u) => {
      try {
        const p = new URL(u);
        return p.protocol === 'http:' || p.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'must be an absolute http or https URL')
    .optional(),
  imageData: z
    .string({ message: 'must be a string: base64 image data or a data URL' })
    .min(1, 'must not be empty')
    .optional(),
  quantity: z.number({ message: QUANTITY }).int(QUANTITY).min(1, QUANTITY).max(10_000, QUANTITY).default(50),
});

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
      // The spec leaves "both supplied" open; guessing which one the client meant would analyze the wrong image.
      if (body.imageUrl !== undefined && body.imageData !== undefined)
        throw badRequest('Supply either imageUrl or imageData, not both');
      if (body.imageUrl === undefined && body.imageData === undefined)
        throw badRequest('imageUrl or imageData is required');

      if (body.imageData !== undefined) {
        res.json(await analyzeBytes(decodedImage(res, DATA_PROBLEM), body.quantity, DATA_PROBLEM));
      } else {
        res.json(await analyzeUrl(deps, body.imageUrl!, body.quantity));
      }
    },
  );

  return r;
}
