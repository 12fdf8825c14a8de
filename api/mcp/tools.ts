// The MCP tools: each takes the input its REST route parses (the same zod schema, api/http/schemas.ts), calls the
// same use case (api/services), and answers the same resource (api/http/resources.ts), as structured content and
// as JSON text. Descriptions are written for a model: what the tool does, what it costs, what comes back.
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { decodeBase64Image } from '../../lib/images';
import { parse } from '../errors';
import { imageProblem } from '../http/image-body';
import {
  analysisResource,
  garmentPage as garmentPageSchema,
  garmentResource,
  generationResource,
  uploadResource,
} from '../http/resources';
import { analyzeBody, garmentListQuery, generateBody, generationIdParam, uploadJsonBody } from '../http/schemas';
import { templateGenerateBody } from '../http/template-generate-schemas';
import { templateListQuery, templatePage as templatePageSchema } from '../http/template-schemas';
import { bulkBody, bulkIdParam, bulkPageResource, bulkQuery, bulkResource } from '../http/bulk-schemas';
import { uploadListQuery, uploadPage as uploadPageSchema } from '../http/upload-library-schemas';
import { DEFAULT_PAGE_LIMIT } from '../pagination';
import type { LimitedEndpoint } from '../middleware/rate-limit';
import { createBulk, presentBulk, readBulk } from '../services/bulk';
import { analyzeBytes, analyzeUrl, oneImageSource, readImageUrl } from '../services/analysis';
import { garmentById, garmentPage } from '../services/garments';
import { generationById } from '../services/generation-lookup';
import { createGeneration, createTemplateGeneration } from '../services/generations';
import { templatePage } from '../services/template-list';
import { presentLibraryUpload, uploadPage as libraryPage } from '../services/upload-library';
import { storeUpload } from '../services/uploads';
import { callerOf, type McpCall } from './call';
import { generationContent } from './generation-content';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  /** the resource answered as structured content, when the tool answers one */
  output?: z.ZodType;
  /** the REST endpoint whose rate-limit budgets a call spends */
  endpoint: LimitedEndpoint;
  annotations: ToolAnnotations;
  run(c: McpCall, args: unknown): Promise<CallToolResult>;
}

/** A tool whose arguments are parsed with `input` as its REST route parses its body (400 invalid_request). */
function tool<S extends z.ZodType>(
  def: Omit<McpTool, 'run' | 'input'> & { input: S; run(c: McpCall, args: z.infer<S>): Promise<CallToolResult> },
): McpTool {
  return { ...def, run: (c, args) => def.run(c, parse(def.input, args ?? {}, 'arguments')) };
}

/** A resource as the tool's answer: structured, and the same JSON as text for clients that show only text. */
export const answer = (value: object): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});

const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

const garmentIdInput = z.strictObject({ garmentId: generateBody.shape.garmentId }).meta({ id: 'GetGarmentArguments' });
const generationIdInput = z.strictObject({ generationId: generationIdParam }).meta({ id: 'GetGenerationArguments' });
const getBulkInput = bulkQuery.extend({ bulkId: bulkIdParam }).meta({ id: 'GetBulkArguments' });
const uploadInput = z
  .strictObject({
    imageData: uploadJsonBody.shape.imageData.optional(),
    imageUrl: analyzeBody.shape.imageUrl,
  })
  .meta({ id: 'UploadDesignArguments' });

/** Bytes of a base64 `imageData` (data URL or bare), 10 MB at most, as POST /upload and POST /analyze decode it. */
function imageDataBytes(data: string, context?: string): Buffer {
  try {
    return decodeBase64Image(data);
  } catch (err) {
    throw imageProblem(err, context);
  }
}

export const TOOLS: McpTool[] = [
  tool({
    name: 'list_garments',
    title: 'List garments',
    description:
      "Lists the garment catalogue (blank t-shirts, hoodies, tanks, long-sleeves, ...) with each garment's colors " +
      '(colors[].imageUrl is the blank photo to pass to generate_mockup as garmentImageUrl), sizes and print zones. ' +
      'Free. Optional category (a slug such as "t-shirts"), limit (a page size "1" to "100", as a string) and ' +
      'cursor (pagination.nextCursor of the previous page, with the same category).',
    input: garmentListQuery,
    output: garmentPageSchema,
    endpoint: 'garments',
    annotations: { ...readOnly, title: 'List garments' },
    run: async (c, q) => answer(await garmentPage(c.deps, q)),
  }),
  tool({
    name: 'get_garment',
    title: 'Get a garment',
    description:
      'One garment by id (from list_garments): colors with their blank photo URLs, sizes, print zones with their ' +
      'maximum print size in inches, base price. Free. An unknown id is a not_found error.',
    input: garmentIdInput,
    output: garmentResource,
    endpoint: 'garments',
    annotations: { ...readOnly, title: 'Get a garment' },
    run: async (c, { garmentId }) => answer(await garmentById(c.deps, garmentId)),
  }),
  tool({
    name: 'upload_design',
    title: 'Upload a design',
    description:
      'Stores a design image (PNG, JPEG, WebP or GIF, at most 10 MB) and returns its upload: `url` is the ' +
      'designUrl to pass to generate_mockup. Give exactly one of imageData (base64, or a data URL ' +
      '"data:image/png;base64,...") or imageUrl (a public http(s) URL the service fetches). Free; counts against the ' +
      "account's storage quota. Uploading the same bytes again returns the earlier upload.",
    input: uploadInput,
    output: uploadResource,
    endpoint: 'upload',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async (c, args) => {
      oneImageSource(args);
      const bytes =
        args.imageData !== undefined ? imageDataBytes(args.imageData) : await readImageUrl(c.deps, args.imageUrl!);
      const { upload, created } = await storeUpload(c.deps, c.req.user!.id, bytes, {
        livemode: callerOf(c).livemode,
        log: c.req.log,
      });
      c.req.log.info(created ? 'upload stored' : 'upload already stored', { uploadId: upload.id, via: 'mcp' });
      return answer(upload);
    },
  }),
  tool({
    name: 'analyze_design',
    title: 'Analyze a design for printing',
    description:
      'Checks a design for printability: dimensions, transparency, dominant colors (hex) and Pantone matches, the ' +
      'recommended print technique (dtg, screen, embroidery, vinyl) with the reason, per-unit prices for a print run ' +
      'of `quantity` (default 50) and warnings (e.g. low resolution). Give exactly one of imageUrl (an upload url ' +
      'works) or imageData (base64). Free.',
    input: analyzeBody,
    output: analysisResource,
    endpoint: 'analyze',
    annotations: { ...readOnly, openWorldHint: true, title: 'Analyze a design' },
    run: async (c, body) => {
      oneImageSource(body);
      const context = 'imageData is not a usable image';
      return answer(
        body.imageData !== undefined
          ? await analyzeBytes(imageDataBytes(body.imageData, context), body.quantity, context)
          : await analyzeUrl(c.deps, body.imageUrl!, body.quantity),
      );
    },
  }),
  tool({
    name: 'generate_mockup',
    title: 'Generate a mockup',
    description:
      'Composites a design onto a garment photo. COSTS 1 TOKEN per call with a live key (a test key spends none and ' +
      'watermarks the mockup "TEST"); an empty balance is an insufficient_tokens error. designUrl: an upload_design ' +
      'url. garmentId and garmentImageUrl: from list_garments (garmentImageUrl = one colors[].imageUrl). Optional ' +
      'zone (front, back, left-chest, right-chest; the garment must offer it) and placement (x, y in percent of the ' +
      'print zone, scale 0.1-1, rotation in degrees). Usually answers within seconds with a small preview image, ' +
      'the full-size mockup URL and the generation; if it is still rendering, call get_generation with its id.',
    input: generateBody,
    output: generationResource,
    endpoint: 'generate',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async (c, body) => {
      const started = await createGeneration(c.deps, c.notices, callerOf(c), body, { sync: true, log: c.req.log });
      c.res.setHeader('X-Tokens-Remaining', String(started.balance));
      return generationContent(c, started.result, { tokensRemaining: started.balance });
    },
  }),
  tool({
    name: 'generate_on_template',
    title: 'Generate a mockup on a template',
    description:
      "Renders a design in a smart object of one of the account's Photoshop templates (list_templates; status " +
      'ready), as Photoshop would: through its perspective or warp, under its shadows and highlights. COSTS 1 TOKEN ' +
      'per call with a live key (a test key spends none and watermarks the mockup "TEST"). templateId; designUrl ' +
      "(an upload_design url) with optional smartObjectId (one of the template's smartObjects[].id; default its " +
      'largest) and placement (x, y in percent of the smart object, scale 0.1-1 where 1 fits it, rotation in ' +
      'degrees), or designs: [{smartObjectId, designUrl, placement?}] to fill several at once (still 1 token). A ' +
      'template still processing or failed is a conflict error. Answers like generate_mockup.',
    input: templateGenerateBody,
    output: generationResource,
    endpoint: 'generate',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async (c, body) => {
      const started = await createTemplateGeneration(c.deps, c.notices, callerOf(c), body, {
        sync: true,
        log: c.req.log,
      });
      c.res.setHeader('X-Tokens-Remaining', String(started.balance));
      return generationContent(c, started.result, { tokensRemaining: started.balance });
    },
  }),
  tool({
    name: 'get_generation',
    title: 'Get a generation',
    description:
      'A generation by id (gen_...): its status (pending, processing, completed, failed), and when completed a ' +
      'small preview image and mockupUrl (full size). Free.',
    input: generationIdInput,
    output: generationResource,
    endpoint: 'other',
    annotations: { ...readOnly, title: 'Get a generation' },
    run: async (c, { generationId }) => {
      const { userId, livemode } = callerOf(c);
      return generationContent(c, await generationById(c.deps, userId, generationId, livemode));
    },
  }),
  tool({
    name: 'list_templates',
    title: 'List mockup templates',
    description:
      "The account's imported mockup templates (PSD/PSB files with smart objects, this key's mode), newest first: " +
      'id, name, status (processing, ready, failed), size, smart objects and preview URLs. Free. Optional limit ' +
      '("1" to "100", as a string) and cursor (pagination.nextCursor of the previous page).',
    input: templateListQuery,
    output: templatePageSchema,
    endpoint: 'other',
    annotations: { ...readOnly, title: 'List templates' },
    run: async (c, q) => answer(await templatePage(c.deps, callerOf(c), q)),
  }),
  tool({
    name: 'list_uploads',
    title: 'List uploaded designs',
    description:
      "The account's uploaded designs (this key's mode), newest first: id, name, url (use it as designUrl in " +
      'generate_mockup), size, createdAt and the latest analysis. Free. Optional q (part of the name, any case), ' +
      'limit ("1" to "100", as a string) and cursor (pagination.nextCursor of the previous page).',
    input: uploadListQuery,
    output: uploadPageSchema,
    endpoint: 'other',
    annotations: { ...readOnly, title: 'List uploads' },
    run: async (c, q) => {
      const { userId, livemode } = callerOf(c);
      const { page, pagination } = await libraryPage(c.deps, userId, livemode, {
        q: q.q,
        cursor: q.cursor,
        limit: q.limit ?? DEFAULT_PAGE_LIMIT,
      });
      return answer({ uploads: page.map((u) => presentLibraryUpload(c.deps, u)), pagination });
    },
  }),
  tool({
    name: 'bulk_generate',
    title: 'Generate every combination in bulk',
    description:
      'Renders every design on every colour and zone of every garment, one mockup each, as one job. COSTS 1 TOKEN ' +
      'PER MOCKUP with a live key, all charged at once (a test key spends none); a balance short of the whole job is ' +
      'an insufficient_tokens error and nothing is charged. designs: [{designUrl, darkDesignUrl?}] (upload_design ' +
      'urls; darkDesignUrl is used on dark colours). targets: [{garmentId, colors?, zones?}] (colors default every ' +
      'available colour, zones default ["front"]). At most 500 mockups (BULK_MAX_ITEMS). Answers at once with the ' +
      'bulk (id, total, tokensCharged); call get_bulk with its id to follow it and get the ZIP (archiveUrl).',
    input: bulkBody,
    output: bulkResource,
    endpoint: 'generate',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async (c, body) => {
      const { row, balance } = await createBulk(c.deps, callerOf(c), body, { sync: false, log: c.req.log });
      c.res.setHeader('X-Tokens-Remaining', String(balance));
      return answer(await presentBulk(c.deps, row));
    },
  }),
  tool({
    name: 'get_bulk',
    title: 'Get a bulk render',
    description:
      'A bulk render by id (blk_...): status (running, completed, canceled), total, completed, failed, tokens ' +
      'charged and refunded, archiveUrl (a ZIP of every mockup, once it has ended) and a page of its generations ' +
      '(mockupUrl each when completed). Free. Optional limit ("1" to "100", as a string) and cursor.',
    input: getBulkInput,
    output: bulkPageResource,
    endpoint: 'other',
    annotations: { ...readOnly, title: 'Get a bulk render' },
    run: async (c, { bulkId, ...q }) => {
      const { userId, livemode } = callerOf(c);
      return answer(await readBulk(c.deps, { userId, livemode }, bulkId, q));
    },
  }),
];
