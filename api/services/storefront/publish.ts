// Publishing a mockup as a product: the mockup a request names (a generation's or a chat job's), its unit economics
// before publishing, the publish workflow (workflows/storefront.ts) and the published products.
import { createPrintFiles } from '../print-files';
import type { z } from 'zod';
import type { costEstimate as costEstimateResource, productResource } from '../../http/resources';
import { getRenderJob, jobAssets } from '../../../db/chat';
import { garmentOfBlankKey, getGarment, type GarmentRow } from '../../../db/garments';
import { getGeneration } from '../../../db/generations';
import { mockupPrintSource } from '../../../db/print-files';
import { getConnection } from '../../../db/storefront';
import {
  getPublishedProduct,
  insertPublishedProduct,
  listPublishedProducts,
  type PublishedProductRow,
} from '../../../db/storefront-products';
import { ownFileKey } from '../../../lib/fetch/own-files';
import { randomSuffix } from '../../../lib/ids';
import { productAdminUrl } from '../../../lib/shopify/client';
import { SUGGESTED_PRICE, toCents, unitEconomics } from '../../../lib/storefront/economics';
import { fileUrl } from '../../../lib/storage';
import { within } from '../../../lib/wait';
import { publishProduct } from '../../../workflows';
import type { AppDeps } from '../../context';
import { ApiError, badRequest, conflict, notFound } from '../../errors';
import { configured, NOT_CONNECTED } from './common';

export const DEFAULT_PRICE = SUGGESTED_PRICE;

/** The mockup a product is made from: exactly one of generationId, or chatJobId with mockupIndex (zod checks). */
export interface MockupSource {
  generationId?: string;
  chatJobId?: string;
  mockupIndex?: number;
}

export interface PublishRequest extends MockupSource {
  connectionId: string;
  title: string;
  description?: string;
  price?: number;
  sizes?: string[];
}

export const CHAT_JOB_NOT_FOUND = 'Chat job not found';
export const CHAT_JOB_NOT_COMPLETED = 'Chat job is not completed';

interface ResolvedMockup {
  source: 'generation' | 'chat';
  generationId: string | null;
  chatJobId: string | null;
  mockupIndex: number | null;
  mediaKey: string;
  garment: GarmentRow | undefined;
}

/**
 * The user's mockup named by the request: a completed generation's (404 not the user's, 409 not completed), or the
 * mockup at `mockupIndex` of the `mockups` of a completed design-chat job (404 not the user's or no such mockup, 409
 * not completed), with the catalogue garment it is on (a chat mockup's blank URL is a garment colour's image, or a
 * client's own photo: no garment).
 */
async function resolveMockup(deps: AppDeps, userId: string, src: MockupSource): Promise<ResolvedMockup> {
  if (src.generationId !== undefined) {
    // live generations only: a watermarked test-mode mockup never reaches a real store
    const gen = await getGeneration(deps.sql, userId, src.generationId, true);
    if (!gen) throw notFound('Generation not found');
    if (gen.status !== 'completed' || !gen.mockupKey) throw conflict('Generation is not completed');
    return {
      source: 'generation',
      generationId: gen.id,
      chatJobId: null,
      mockupIndex: null,
      mediaKey: gen.mockupKey,
      // a generation on a customer's template has no catalogue garment
      garment: gen.garmentId ? await getGarment(deps.sql, gen.garmentId) : undefined,
    };
  }
  const job = await getRenderJob(deps.sql, src.chatJobId!, userId);
  if (!job) throw notFound(CHAT_JOB_NOT_FOUND);
  if (job.status !== 'completed') throw conflict(CHAT_JOB_NOT_COMPLETED);
  const mockups = (await jobAssets(deps.sql, job.id)).filter((a) => a.kind === 'mockup');
  const m = mockups[src.mockupIndex!];
  if (!m)
    throw notFound(
      mockups.length === 0
        ? 'Mockup not found: the chat job made no mockups (it was given no garmentUrls)'
        : `Mockup not found: the chat job has ${mockups.length} mockup${mockups.length === 1 ? '' : 's'} (mockupIndex 0 to ${mockups.length - 1})`,
    );
  const blankKey = m.garmentUrl ? ownFileKey(deps.config.publicBaseUrl, m.garmentUrl) : null;
  return {
    source: 'chat',
    generationId: null,
    chatJobId: job.id,
    mockupIndex: m.position,
    mediaKey: m.storageKey,
    garment: blankKey ? await garmentOfBlankKey(deps.sql, blankKey) : undefined,
  };
}

/**
 * The mockup's print cost (USD cents) from its print file (docs/production.md "Cost model"): the file for the default
 * size, made now if it is not yet (production prints from the same file); null when the print has no physical size
 * (a chat mockup on a foreign blank): the spec's flat rate.
 */
async function mockupPrintCents(deps: AppDeps, userId: string, m: ResolvedMockup): Promise<number | null> {
  return createPrintFiles(deps).printCostCents(await mockupPrintSource(deps.sql, m, userId));
}

const presentProduct = (p: PublishedProductRow, devShopUrl?: string): z.infer<typeof productResource> => {
  const { costs, margin } = unitEconomics({
    price: p.basePriceCents / 100,
    blankPrice: p.blankPrice,
    printCents: p.printCostCents,
  });
  return {
    id: p.id,
    status: p.status,
    source: p.chatJobId ? 'chat' : 'generation',
    generationId: p.generationId,
    chatJobId: p.chatJobId,
    mockupIndex: p.mockupIndex,
    garmentId: p.garmentId,
    connectionId: p.connectionId,
    title: p.title,
    price: p.basePriceCents / 100,
    sizes: p.sizes,
    costs,
    margin,
    productId: p.shopifyProductId,
    handle: p.shopifyHandle,
    adminUrl: p.shopifyProductId ? productAdminUrl(p.shopDomain, p.shopifyProductId, devShopUrl) : null,
    error: p.error,
    createdAt: p.createdAt.toISOString(),
    publishedAt: p.publishedAt?.toISOString() ?? null,
  };
};

/**
 * GET /costs: the unit economics of publishing a mockup (the same source as publishing), at `price` (default the
 * suggested 59.99), with the image and the garment's sizes: what the dashboard's publish form shows before
 * publishing. Reads the database only, so it answers without Shopify configured too.
 */
export async function costEstimate(
  deps: AppDeps,
  userId: string,
  q: MockupSource & { price?: number },
): Promise<z.infer<typeof costEstimateResource>> {
  const m = await resolveMockup(deps, userId, q);
  const e = unitEconomics({
    price: q.price ?? SUGGESTED_PRICE,
    blankPrice: m.garment?.basePrice,
    printCents: await mockupPrintCents(deps, userId, m),
  });
  return {
    source: m.source,
    generationId: m.generationId,
    chatJobId: m.chatJobId,
    mockupIndex: m.mockupIndex,
    imageUrl: fileUrl(deps.config, m.mediaKey),
    garmentId: m.garment?.id ?? null,
    garmentName: m.garment?.name ?? null,
    sizes: m.garment?.sizes ?? [],
    price: e.price,
    suggestedPrice: SUGGESTED_PRICE,
    costs: e.costs,
    margin: e.margin,
  };
}

/**
 * POST /publish: the mockup (a generation's or a chat job's), the connection, the row, workflow publish-<id>; 200
 * when published within the sync budget, else 202. Both answers carry the unit price, costs and margin.
 */
export async function publish(deps: AppDeps, userId: string, body: PublishRequest) {
  configured(deps);
  const mockup = await resolveMockup(deps, userId, body);
  const conn = await getConnection(deps.sql, body.connectionId, userId);
  if (!conn) throw notFound('Connection not found');
  if (conn.status !== 'active' || !conn.accessTokenEnc) throw conflict(NOT_CONNECTED);
  const sizes = body.sizes ?? mockup.garment?.sizes ?? [];
  if (sizes.length === 0)
    throw badRequest(
      mockup.garment
        ? 'sizes: the garment has no sizes; give them'
        : "sizes: the mockup's blank is not a catalogue garment; give them",
    );
  const printCostCents = await mockupPrintCents(deps, userId, mockup);
  const id = `pub_${Date.now()}_${randomSuffix(10)}`;
  await insertPublishedProduct(deps.sql, {
    id,
    userId,
    generationId: mockup.generationId,
    chatJobId: mockup.chatJobId,
    mockupIndex: mockup.mockupIndex,
    garmentId: mockup.garment?.id ?? null,
    connectionId: conn.id,
    title: body.title,
    description: body.description ?? null,
    sizes,
    basePriceCents: toCents(body.price ?? DEFAULT_PRICE),
    printCostCents,
  });
  const handle = await deps.temporal.workflow.start(publishProduct, {
    workflowId: `publish-${id}`,
    taskQueue: deps.config.temporal.taskQueue,
    args: [{ publishedProductId: id, accountId: userId }],
    searchAttributes: { AccountId: [userId] },
  });
  const result = await within(deps.config.shopify.syncTimeoutMs, handle.result());
  const product = presentProduct((await getPublishedProduct(deps.sql, id, userId))!, deps.config.shopify.devShopUrl);
  const economics = { price: product.price, costs: product.costs, margin: product.margin };
  if (!result) return { status: 202, body: { id, status: 'publishing' as const, ...economics } };
  if (result.status === 'failed') {
    if (result.error === NOT_CONNECTED) throw conflict(NOT_CONNECTED);
    throw new ApiError(502, 'service_unavailable', `Publishing failed: ${result.error}`);
  }
  return {
    status: 200,
    body: {
      id,
      status: 'published' as const,
      productId: product.productId,
      adminUrl: product.adminUrl,
      ...economics,
    },
  };
}

export async function products(deps: AppDeps, userId: string) {
  return (await listPublishedProducts(deps.sql, userId)).map((p) => presentProduct(p, deps.config.shopify.devShopUrl));
}
