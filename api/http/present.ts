// Presenters: database rows to the API's resource shapes (spec "Garment", "Generation").
import type { GarmentRow } from '../../db/garments';
import type { GenerationRow } from '../../db/generations';
import type { Config } from '../../lib/config';
import type { Zone } from '../../lib/generation/types';
import { fileUrl } from '../../lib/storage';
import type { garmentResource, generationResource } from './resources';
import type { z } from 'zod';

const pct = (f: number) => Math.round(f * 10000) / 100;

export function presentGarment(deps: { config: Config }, g: GarmentRow): z.infer<typeof garmentResource> {
  const first = g.colors[0];
  return {
    id: g.id,
    name: g.name,
    brand: g.brand,
    category: g.category,
    basePrice: Number(g.basePrice),
    currency: 'USD',
    colors: g.colors.map((c) => ({
      name: c.name,
      hex: c.hex,
      imageUrl: fileUrl(deps.config, c.frontKey),
      backImageUrl: fileUrl(deps.config, c.backKey),
      thumbnailUrl: fileUrl(deps.config, c.thumbKey),
      available: c.available,
    })),
    sizes: g.sizes,
    // maxWidth/maxHeight: inches of printable area. position: the zone's top-left corner in percent of the blank
    // image (x from the left, y from the top). region adds width and height in percent, so the zone maps to pixels
    // on any color's blank of the zone's view.
    printZones: g.zones.map((z) => ({
      id: z.id,
      name: z.name,
      maxWidth: Number(z.maxWidthIn),
      maxHeight: Number(z.maxHeightIn),
      position: { x: pct(z.x), y: pct(z.y) },
      region: { x: pct(z.x), y: pct(z.y), width: pct(z.w), height: pct(z.h) },
      view: z.view,
    })),
    images: first
      ? { thumbnail: fileUrl(deps.config, first.thumbKey), full: fileUrl(deps.config, first.frontKey) }
      : { thumbnail: null, full: null },
  };
}

export function presentGeneration(deps: { config: Config }, g: GenerationRow): z.infer<typeof generationResource> {
  return {
    id: g.id,
    status: g.status,
    ...(g.status === 'completed' && g.mockupKey ? { mockupUrl: fileUrl(deps.config, g.mockupKey) } : {}),
    ...(g.status === 'completed' && g.thumbnailKey ? { thumbnailUrl: fileUrl(deps.config, g.thumbnailKey) } : {}),
    tokensUsed: g.tokensUsed,
    createdAt: g.createdAt.toISOString(),
    ...(g.completedAt ? { completedAt: g.completedAt.toISOString() } : {}),
    ...(g.status === 'failed' ? { error: g.error ?? 'Generation failed' } : {}),
    ...(g.garmentId !== null ? { garmentId: g.garmentId } : {}),
    ...(g.color !== null ? { color: g.color } : {}),
    ...(g.zone !== null ? { zone: g.zone as Zone } : {}), // the database allows only the spec's zones
    ...(g.templateId !== null ? { templateId: g.templateId } : {}),
    ...(g.designs ? { designs: g.designs } : {}),
    placement: g.placement,
    applyTexture: g.applyTexture,
    designUrl: g.designUrl,
    ...(g.status === 'completed' && g.printAreaPx ? { printArea: g.printAreaPx } : {}),
    ...(g.status === 'completed' && g.designBox ? { designBox: g.designBox } : {}),
    ...(g.status === 'completed' && g.placementBasis ? { placementBasis: g.placementBasis } : {}),
    livemode: g.livemode,
    warnings: g.warnings ?? [],
  };
}
