// Shared between the API, the workflow and the activities: plain data only (workflows import this too). Placement,
// where a design goes in its print zone, is the compositing engine's own type: a type-only import, erased in the
// workflow bundle.
import type { Placement } from '../compositing/placement';

export type { Placement };
export const ZONES = ['front', 'back', 'left-chest', 'right-chest'] as const;
export type Zone = (typeof ZONES)[number];

/** A client's own print area on generate and batch items: percent (0-100) of the photo; x, y = top-left corner. */
export interface PrintArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A rectangle in an image's pixels (the generation resource's printArea and designBox). */
export interface PixelBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** What the print zone was placed relative to: the garment (found in the photo, or our own blank) or the image. */
export type PlacementBasis = 'image' | 'garment';

export type GenerationStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface GenerationWorkflowInput {
  generationId: string;
  accountId: string;
  /** the garment; a template generation names its template instead (job.kind 'template') */
  garmentId: string | null;
  templateId?: string;
  webhookUrl: string | null;
  /** false for a test-mode generation (its callback says so and reports no token); absent means live */
  livemode?: boolean;
  /**
   * What the render needs, as the API has just recorded it: the render step composites at once, while the statement
   * that marks the generation processing (and checks its debit) runs beside it. Every input carries it (a batch's
   * items too); a workflow started without one fails and refunds its generation (generations started before the
   * job was carried are long finished: the maintenance sweep fails any left pending for 10 minutes).
   */
  job?: RenderJob;
}

export interface GenerationWorkflowResult {
  status: 'completed' | 'failed';
  error?: string;
}

/** Error types the generation activities throw for input that no retry can fix. */
export const NON_RETRYABLE_GENERATION_ERRORS = ['DesignImageError', 'BadInputError'];

/** PostgreSQL NOTIFY channel: the generation id, sent (pg_notify) in the transaction that marks a generation completed
 * or failed (db/generations.ts: completeGeneration, failAndRefund), heard by the API to answer synchronous requests
 * (api/generation-notices.ts). */
export const GENERATION_FINISHED_CHANNEL = 'generation_finished';

/**
 * The one render job: what the render step needs to make one generation's mockup, derived once, when the API records
 * the generation (api/services/generation-jobs.ts newGeneration), recorded with the row (db/generation-inserts.ts
 * insertAndChargeGenerations writes the row from it) and carried by the workflow's input, a batch's items included,
 * so the render starts without reading the database. Kinds of render are told apart by `kind`: absent or 'garment'
 * is a design composited on a garment photo, 'template' one or more designs rendered into a customer's Photoshop
 * template (another kind is added as another member of the RenderJob union with its own `kind`). Plain data: workflow inputs recorded by earlier releases keep parsing.
 */
export interface GarmentRenderJob {
  kind?: 'garment';
  userId: string;
  designUrl: string;
  blankKey: string;
  /** the print zone, fractions of the blank */
  zone: { x: number; y: number; width: number; height: number };
  placement: Placement;
  applyTexture: boolean;
  /** the zone's view and the garment's silhouette, to fit the zone to the garment in a client's photo (absent in
   * jobs recorded before they existed: no fit) */
  view?: string | null;
  silhouette?: string;
  /** the client's print area, percent of the photo (overrides the zone) */
  printArea?: PrintArea | null;
  /** false: a test-mode generation, whose mockup gets the TEST watermark; absent means live */
  livemode?: boolean;
  /** true: an item of a bulk render, composited in the background lane (lib/gate.ts); absent: in the foreground */
  background?: boolean;
}

/** One smart object's design on a template generation, its placement's defaults applied (spec semantics within the
 * smart object: x, y = the design's center in % of it, scale 1 = fit inside it, rotation clockwise). */
export interface TemplateDesign {
  smartObjectId: string;
  designUrl: string;
  placement: Placement;
}

/**
 * A design (or several) rendered into the smart objects of a customer's Photoshop template (issue 32,
 * docs/templates.md): the template's prepared layers (storage key of its manifest, cached in the worker) with each
 * design resized to its smart object's size, mapped through its transform and warp, under the layers above it.
 */
export interface TemplateRenderJob {
  kind: 'template';
  userId: string;
  templateId: string;
  /** the prepared template's manifest key (lib/template-import/prepared-store.ts) */
  preparedKey: string;
  designs: TemplateDesign[];
  /** 'auto': the template's Displace filter or a map derived from the layers under the smart object; 'off': none */
  displace: 'auto' | 'off';
  livemode?: boolean;
  /** true: an item of a bulk render, rendered in the compositing gate's background lane (lib/gate.ts) */
  background?: boolean;
}

export type RenderJob = GarmentRenderJob | TemplateRenderJob;

/** The files of a generation an earlier run completed (a re-run after a crash returns them). */
export interface CompletedFiles {
  mockupKey: string;
  thumbnailKey: string;
  completedAt: string;
}

export interface RenderResult {
  mockupKey: string;
  thumbnailKey: string;
  completedAt: string;
  mockupUrl: string;
  /** the print zone used and where the design landed (blank pixels); absent when an earlier run had done the work */
  printArea?: PixelBox;
  designBox?: PixelBox;
  placementBasis?: PlacementBasis;
  /** where the activity's time went (logged too); empty when an earlier run had done the work */
  ms: Record<string, number>;
}

/** Where a generation stands after the failure path (activities/generation.ts failGeneration). */
export type GenerationFailureOutcome =
  | { status: 'failed'; error: string; completedAt: string }
  | { status: 'completed'; completedAt: string; mockupUrl: string };

/** A batch of generations of one design (POST /generate/batch), workflow id `batch-<first generation id>`. */
export interface GenerationBatchItem {
  generationId: string;
  garmentId: string | null;
  /** the item's render job, as for a single generation (absent only in batches started before items carried it) */
  job?: RenderJob;
}

export interface GenerationBatchInput {
  batchId: string;
  accountId: string;
  webhookUrl: string | null;
  /** false for a test-mode batch; absent means live */
  livemode?: boolean;
  items: GenerationBatchItem[];
}

export interface GenerationBatchResult {
  batchId: string;
  results: ({ generationId: string } & GenerationWorkflowResult)[];
}
