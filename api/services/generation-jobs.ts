// A new generation and its render job, derived once (lib/generation/types.ts RenderJob): from the garment, the zone
// and blank the request names, and the placement. POST /generate, POST /generate/batch (and any other way of
// creating generations) record the result (db/generations.ts insertAndChargeGenerations) and hand its job to the
// workflow, so the render never derives it again.
import type { GarmentRow } from '../../db/garments';
import type { NewGeneration } from '../../db/generations';
import { ownFileKey } from '../../lib/fetch';
import type { Placement, PrintArea } from '../../lib/generation/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { badRequest } from '../errors';

/** Who asks: the account, the key the request came with, and its mode (false: test mode). */
export interface Caller {
  userId: string;
  apiKeyId: string | null;
  livemode?: boolean;
}

/**
 * Which blank to composite on. A URL of one of this garment's own blanks names its color (and the zone's view is
 * used: a back print goes on that color's back view). Any other URL is the client's own blank photo, fetched
 * through the SSRF guard by the worker; `color` then only labels it, and must name one of the garment's colors.
 */
export function resolveBlank(
  deps: Pick<AppDeps, 'config'>,
  garment: GarmentRow,
  url: string,
  color: string | undefined,
  view: string,
): { key: string; color: string } {
  const named = color ? garment.colors.find((c) => c.name.toLowerCase() === color.toLowerCase()) : undefined;
  if (color && !named) {
    throw badRequest(
      `Garment ${garment.id} has no color ${JSON.stringify(color)}; it offers: ${garment.colors.map((c) => c.name).join(', ')}`,
      { field: 'color' },
    );
  }
  const key = ownFileKey(deps.config.publicBaseUrl, url);
  if (key !== null) {
    const own = garment.colors.find((c) => c.frontKey === key || c.backKey === key);
    if (!own)
      throw badRequest(
        `garmentImageUrl is not a blank of garment ${garment.id}: use a colors[].imageUrl from the garment listing`,
        { field: 'garmentImageUrl' },
      );
    if (named && named !== own)
      throw badRequest(
        `color ${JSON.stringify(color)} does not match garmentImageUrl, which is the ${own.name} blank`,
        {
          field: 'color',
        },
      );
    if (!own.available)
      throw badRequest(`Color ${own.name} of garment ${garment.id} is not available`, { field: 'color' });
    return { key: view === 'back' ? own.backKey : own.frontKey, color: own.name };
  }
  if (named && !named.available)
    throw badRequest(`Color ${named.name} of garment ${garment.id} is not available`, { field: 'color' });
  return { key: `url:${url}`, color: named?.name ?? 'custom' };
}

/** The zone of a garment, or a 400 naming the zones it offers. */
export function zoneOf(garment: GarmentRow, zone: string) {
  const z = garment.zones.find((zz) => zz.id === zone);
  if (!z)
    throw badRequest(
      `Garment ${garment.id} has no ${zone} print zone; it offers: ${garment.zones.map((zz) => zz.id).join(', ')}`,
      { field: 'zone' },
    );
  return z;
}

/** What one generation asks for (a generate body, or a batch item with the batch's defaults applied). */
export interface GenerationAsk {
  designUrl: string;
  zone: string;
  /** the blank photo: one of the garment's (its color follows) or the client's own; absent: `color`'s catalogue blank */
  garmentImageUrl?: string | undefined;
  color?: string | undefined;
  placement: Placement;
  applyTexture: boolean;
  printArea?: PrintArea | null | undefined;
  webhookUrl: string | null;
}

/** A new generation of `garment` with its render job, or a 400 naming what is wrong with the ask. */
export function newGeneration(
  deps: Pick<AppDeps, 'config'>,
  caller: Caller,
  garment: GarmentRow,
  ask: GenerationAsk,
): NewGeneration {
  const zone = zoneOf(garment, ask.zone);
  let url = ask.garmentImageUrl;
  if (url === undefined) {
    // Color by name only: its blank from the catalogue (resolveBlank picks the zone's view).
    const c = garment.colors.find((cc) => cc.name.toLowerCase() === (ask.color ?? '').toLowerCase());
    if (!c)
      throw badRequest(
        `Garment ${garment.id} has no color ${JSON.stringify(ask.color)}; it offers: ${garment.colors.map((cc) => cc.name).join(', ')}`,
        { field: 'color' },
      );
    url = fileUrl(deps.config, zone.view === 'back' ? c.backKey : c.frontKey);
  }
  const blank = resolveBlank(deps, garment, url, ask.color, zone.view);
  return {
    id: timeId('gen'),
    garmentId: garment.id,
    color: blank.color,
    zone: ask.zone,
    garmentImageUrl: url,
    webhookUrl: ask.webhookUrl,
    job: {
      userId: caller.userId,
      designUrl: ask.designUrl,
      blankKey: blank.key,
      zone: { x: zone.x, y: zone.y, width: zone.w, height: zone.h },
      placement: ask.placement,
      applyTexture: ask.applyTexture,
      view: zone.view,
      silhouette: garment.silhouette,
      printArea: ask.printArea ?? null,
      ...(caller.livemode === false ? { livemode: false } : {}),
    },
  };
}
