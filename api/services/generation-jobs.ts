// A new generation and its render job, derived once (lib/generation/types.ts RenderJob): from the garment, the zone
// and blank the request names, and the placement. POST /generate, POST /generate/batch (and any other way of
// creating generations) record the result (db/generation-inserts.ts insertAndChargeGenerations) and hand its job to the
// workflow, so the render never derives it again.
import type { GarmentRow } from '../../db/garments';
import type { NewGeneration } from '../../db/generation-inserts';
import type { TemplateRow } from '../../db/templates';
import { ownFileKey } from '../../lib/fetch';
import type { GarmentRenderJob, Placement, PrintArea, TemplateDesign } from '../../lib/generation/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { badRequest, conflict } from '../errors';

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

/** A new generation on a garment: its garment columns are set, its job is a garment render. */
export type NewGarmentGeneration = NewGeneration & {
  garmentId: string;
  color: string;
  zone: string;
  garmentImageUrl: string;
  job: GarmentRenderJob;
};

/** A new generation of `garment` with its render job, or a 400 naming what is wrong with the ask. */
export function newGeneration(
  deps: Pick<AppDeps, 'config'>,
  caller: Caller,
  garment: GarmentRow,
  ask: GenerationAsk,
): NewGarmentGeneration {
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

/** What a generation on a template asks for (POST /generate or /preview with templateId). */
export interface TemplateAsk {
  designUrl?: string | undefined;
  smartObjectId?: string | undefined;
  placement?: Placement | undefined;
  designs?: { smartObjectId: string; designUrl: string; placement?: Placement | undefined }[] | undefined;
  displace: 'auto' | 'off';
}

/** A smart object's default placement: centered, as large as fits inside it. */
export const TEMPLATE_PLACEMENT: Placement = { x: 50, y: 50, scale: 1, rotation: 0 };

/** A garment print zone's default placement (as POST /generate's). */
export const GARMENT_PLACEMENT: Placement = { x: 50, y: 35, scale: 0.8, rotation: 0 };

/** A placement shared by targets of different kinds: the members given, the target's defaults for the others. */
export function placementWith(defaults: Placement, given: Partial<Record<keyof Placement, number | undefined>>) {
  const out = { ...defaults };
  for (const k of ['x', 'y', 'scale', 'rotation'] as const) if (given[k] !== undefined) out[k] = given[k];
  return out;
}

const quadArea = (q: TemplateRow['smartObjects'][number]['quad']) =>
  Math.abs(q.reduce((a, p, i) => a + p[0] * q[(i + 1) % 4]![1] - q[(i + 1) % 4]![0] * p[1], 0)) / 2;

/** The template's largest smart object (by the area it covers in the template): where one design goes by default. */
export function largestSmartObject(t: TemplateRow): TemplateRow['smartObjects'][number] | undefined {
  return [...t.smartObjects].sort((a, b) => quadArea(b.quad) - quadArea(a.quad))[0];
}

/**
 * The designs of a render on `template`, each naming one of its smart objects with its placement, or the error a
 * client can act on: 409 while the template is processing or when its import failed, 400 for a smart object it does
 * not have (naming the ones it has).
 */
export function templateDesigns(template: TemplateRow, ask: TemplateAsk): TemplateDesign[] {
  if (template.status === 'processing')
    throw conflict(
      `Template ${template.id} is still being imported: poll GET /api/v1/templates/${template.id} until its status is ready`,
    );
  if (template.status === 'failed')
    throw conflict(
      `Template ${template.id} failed to import (${template.error ?? 'unknown error'}): it cannot be rendered`,
    );
  if (!template.preparedKey || template.smartObjects.length === 0)
    throw badRequest(`Template ${template.id} has no smart object to place a design in`, { field: 'templateId' });
  const has = template.smartObjects.map((s) => `${s.id} (${JSON.stringify(s.name)})`).join(', ');
  const known = (id: string, field: string) => {
    if (!template.smartObjects.some((s) => s.id === id))
      throw badRequest(`Template ${template.id} has no smart object ${JSON.stringify(id)}; it has: ${has}`, { field });
    return id;
  };
  if (ask.designs)
    return ask.designs.map((d, i) => ({
      smartObjectId: known(d.smartObjectId, `designs.${i}.smartObjectId`),
      designUrl: d.designUrl,
      placement: d.placement ?? TEMPLATE_PLACEMENT,
    }));
  const id =
    ask.smartObjectId === undefined ? largestSmartObject(template)!.id : known(ask.smartObjectId, 'smartObjectId');
  return [{ smartObjectId: id, designUrl: ask.designUrl!, placement: ask.placement ?? TEMPLATE_PLACEMENT }];
}

/** A new generation on a ready template with its render job (kind 'template'), or the error templateDesigns names. */
export function newTemplateGeneration(
  caller: Caller,
  template: TemplateRow,
  ask: TemplateAsk & { webhookUrl: string | null; background?: boolean },
): NewGeneration {
  const designs = templateDesigns(template, ask);
  return {
    id: timeId('gen'),
    garmentId: null,
    color: null,
    zone: null,
    garmentImageUrl: null,
    webhookUrl: ask.webhookUrl,
    job: {
      kind: 'template',
      userId: caller.userId,
      templateId: template.id,
      preparedKey: template.preparedKey!,
      designs,
      displace: ask.displace,
      ...(caller.livemode === false ? { livemode: false } : {}),
      ...(ask.background ? { background: true } : {}),
    },
  };
}
