// POST /api/v1/preview: the placement preview the dashboard redraws while the user drags, scales and
// rotates. It is free and synchronous, so it runs in the API process, on the same compositing engine and placement
// maths as a paid generation (lib/compositing composite()), on blanks shrunk to PREVIEW_MAX_SIDE: the same garment,
// zone rectangle (in fractions of the blank) and placement give the same picture, downscaled.
import { createUserImageLoader } from '../../lib/fetch/user-images';
import { choosePrintZone, composite, createBlankCache, designSource, zonePixels } from '../../lib/compositing';
import { isBadInput } from '../../lib/errors';
import type { PixelBox, PlacementBasis } from '../../lib/generation/types';
import type { GenerationWarning } from '../../lib/generation/warnings';
import type { z } from 'zod';
import type { AppDeps } from '../context';
import { conflict, imageReadError, notFound } from '../errors';
import type { previewBody } from '../http/schemas';
import type { templatePreviewBody } from '../http/template-generate-schemas';
import { getTemplate, templateOutputsRefresher } from '../../db/templates';
import { createPreparedTemplateCache } from '../../lib/template-import/prepared-store';
import { templateMockup } from '../../lib/template-import/render';
import { designsOf } from './upload-library';
import { cachedGarment } from './garment-cache';
import { resolveBlank, templateDesigns, zoneOf, type Caller } from './generation-jobs';

/** Long side of a preview, in pixels (the bound). */
export const PREVIEW_MAX_SIDE = 640;
/** Shrunk blanks kept by the API process: ~2.5 MB each at 640x640 with their maps and lookup tables. */
const PREVIEW_BLANK_CACHE_BYTES = 64 * 1024 * 1024;

/** POST /preview's body, as its schema parses it (the generate body without webhookUrl). */
export type PreviewRequest = z.infer<typeof previewBody>;

export interface Preview {
  jpeg: Buffer;
  width: number;
  height: number;
  /** as in the generation resource, in the preview's pixels; `garment`: the garment found in a client's photo */
  printArea: PixelBox;
  designBox: PixelBox;
  placementBasis: PlacementBasis;
  garment: PixelBox | null;
  /** as a generation's render warnings: garment_not_found, zone_clipped */
  warnings: GenerationWarning[];
}

export type Previewer = (body: PreviewRequest) => Promise<Preview>;

/** One previewer per app: its shrunk-blank cache is shared by every request. */
export function createPreviewer(deps: Pick<AppDeps, 'config' | 'sql' | 'storage'>): Previewer {
  const sources = { storage: deps.storage, loadUserImage: createUserImageLoader(deps) };
  const blanks = createBlankCache(sources, {
    maxSide: PREVIEW_MAX_SIDE,
    maxBytes: PREVIEW_BLANK_CACHE_BYTES,
    findGarment: true,
  });

  return async (body) => {
    // the garment from the process's short-lived catalogue cache, as POST /generate reads it
    const garment = await cachedGarment(deps, body.garmentId);
    if (!garment) throw notFound(`Garment ${JSON.stringify(body.garmentId)} not found`);
    const zone = zoneOf(garment, body.zone);
    const resolved = resolveBlank(deps, garment, body.garmentImageUrl, body.color, zone.view);
    const blank = await blanks.get(resolved.key).catch((err: unknown) => {
      throw imageReadError(err, 'Blank image');
    });
    // the generation activity's sources (lib/compositing/sources.ts), so a preview shows what a generation renders
    const { source: design } = designSource({ ...sources, publicBaseUrl: deps.config.publicBaseUrl }, body.designUrl);
    // the same print zone as the generation would use (a client's printArea, or fitted to the garment in its photo)
    const chosen = await choosePrintZone({
      blank,
      zone: { x: zone.x, y: zone.y, width: zone.w, height: zone.h },
      silhouette: garment.silhouette,
      view: zone.view,
      printArea: body.printArea ?? null,
    });
    const found = blank.garment?.found ? blank.garment.box : null;
    try {
      const out = await composite({
        blank,
        design,
        zone: chosen.zone,
        placement: body.placement,
        applyTexture: body.applyTexture,
      });
      return {
        jpeg: out.mockup,
        width: out.width,
        height: out.height,
        printArea: chosen.printArea,
        designBox: out.designBox,
        placementBasis: chosen.basis,
        warnings: chosen.warning ? [chosen.warning] : [],
        garment: found
          ? zonePixels({ x: found.left, y: found.top, width: found.width, height: found.height }, out.width, out.height)
          : null,
      };
    } catch (err) {
      throw imageReadError(err, 'Design image');
    }
  };
}

/** Prepared templates kept by the API process for previews (a bound of its own, smaller than a worker's). */
export const PREVIEW_TEMPLATE_CACHE_BYTES = 128 * 1024 * 1024;

/** POST /preview's body on a template, as its schema parses it. */
export type TemplatePreviewRequest = z.infer<typeof templatePreviewBody>;

export type TemplatePreviewer = (caller: Caller, body: TemplatePreviewRequest) => Promise<TemplatePreview>;

export interface TemplatePreview {
  jpeg: Buffer;
  width: number;
  height: number;
}

/**
 * The preview on a template: the same render as a generation on it (lib/template-import/render.ts, the same design
 * sizes and prepared layers, read through this process's own cache), scaled to PREVIEW_MAX_SIDE. 404 for a template
 * the caller does not have in its mode, 409 while it is not ready, 400 for a smart object it does not have.
 */
export function createTemplatePreviewer(deps: Pick<AppDeps, 'config' | 'sql' | 'storage'>): TemplatePreviewer {
  const loadUserImage = createUserImageLoader(deps);
  const templates = createPreparedTemplateCache(
    deps.storage,
    Math.min(PREVIEW_TEMPLATE_CACHE_BYTES, deps.config.templates.cacheBytes),
    { preparedAgain: templateOutputsRefresher(deps.sql, deps.storage) },
  );
  return async (caller, body) => {
    const template = await getTemplate(deps.sql, caller.userId, body.templateId, caller.livemode !== false);
    if (!template) throw notFound(`Template ${JSON.stringify(body.templateId)} not found`);
    const designs = templateDesigns(template, body);
    await designsOf(
      deps as AppDeps,
      designs.map((d, i) => ({ url: d.designUrl, field: body.designs ? `designs.${i}.designUrl` : 'designUrl' })),
    );
    // a template prepared by an older engine is prepared again here, once; 409 when its source is gone
    const prepared = await templates.get(template.preparedKey!).catch((err: unknown) => {
      throw isBadInput(err) ? conflict(err.message) : err;
    });
    const sources = designs.map((d) => ({
      smartObjectId: d.smartObjectId,
      placement: d.placement,
      source: designSource(
        { storage: deps.storage, loadUserImage, publicBaseUrl: deps.config.publicBaseUrl },
        d.designUrl,
      ).source,
    }));
    try {
      const out = await templateMockup(prepared, sources, {
        displace: body.displace,
        maxSide: PREVIEW_MAX_SIDE,
        thumbnail: false,
      });
      return { jpeg: out.mockup, width: out.width, height: out.height };
    } catch (err) {
      throw imageReadError(err, 'Design image');
    }
  };
}
