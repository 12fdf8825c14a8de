// MCP resources and the prompt: garment://{id} (the garment resource of GET /garments/<id>, and the catalogue as
// the template's listing) and generation://{id} (GET /generations/<id>), read under the same limits as those routes
// and logged as /mcp/resources/<kind>; the prompt mockup-for-shop walks a model through choosing garments and
// colours for a design.
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ApiError } from '../errors';
import { presentGeneration } from '../http/present';
import { garmentById, garmentPage } from '../services/garments';
import { generationById } from '../services/generation-lookup';
import { callerOf, envelope, gated, type Called, type McpCall } from './call';

/** MCP's "resource not found" (the specification's recommended code). */
export const RESOURCE_NOT_FOUND = -32002;

/** A refused read as a JSON-RPC error: the Part A envelope in `data`. */
function readError(e: ApiError): McpError {
  const code =
    e.code === 'not_found'
      ? RESOURCE_NOT_FOUND
      : e.code === 'invalid_request'
        ? ErrorCode.InvalidParams
        : e.status >= 500
          ? ErrorCode.InternalError
          : -32000;
  return new McpError(code, e.message, envelope(e));
}

async function read<T>(c: McpCall, what: Called, run: () => Promise<T>): Promise<T> {
  const r = await gated(c, what, run);
  if (!r.ok) throw readError(r.error);
  return r.value;
}

const json = (uri: URL, value: unknown) => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }],
});

const variable = (v: string | string[] | undefined) => decodeURIComponent(Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

const garmentRead: Called = { name: 'resource:garment', route: '/mcp/resources/garment', endpoint: 'garments' };
const generationRead: Called = { name: 'resource:generation', route: '/mcp/resources/generation', endpoint: 'other' };

export function registerResources(server: McpServer, c: McpCall): void {
  server.registerResource(
    'garment',
    new ResourceTemplate('garment://{id}', {
      // the catalogue's first 100 garments: it holds a few dozen
      list: async () => {
        const page = await read(c, { ...garmentRead, name: 'resource:garments' }, () =>
          garmentPage(c.deps, { limit: 100 }),
        );
        return {
          resources: page.garments.map((g) => ({
            uri: `garment://${g.id}`,
            name: g.name,
            title: `${g.brand} ${g.name}`,
            description: `${g.category}; colors: ${g.colors.map((x) => x.name).join(', ')}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Garment',
      description:
        'A garment of the catalogue: colors with blank photo URLs, sizes, print zones (JSON, as get_garment)',
      mimeType: 'application/json',
    },
    async (uri, vars) => json(uri, await read(c, garmentRead, () => garmentById(c.deps, variable(vars.id)))),
  );

  server.registerResource(
    'generation',
    new ResourceTemplate('generation://{id}', { list: undefined }),
    {
      title: 'Generation',
      description: "One of the account's generations by id (gen_...), in the key's mode (JSON, as get_generation)",
      mimeType: 'application/json',
    },
    async (uri, vars) => {
      const { userId, livemode } = callerOf(c);
      const row = await read(c, generationRead, () => generationById(c.deps, userId, variable(vars.id), livemode));
      return json(uri, presentGeneration(c.deps, row));
    },
  );
}

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'mockup-for-shop',
    {
      title: 'Mockups for a shop',
      description:
        'Walks through choosing garments and colours for a design and generating mockups a shop can list ' +
        '(each mockup costs 1 token with a live key).',
      argsSchema: {
        design: z.string().min(1).max(2048).describe('the design: an upload url, a public image URL, or "attached"'),
        shop: z
          .string()
          .max(500)
          .optional()
          .describe('the shop: what it sells, to whom, its style (e.g. "minimalist outdoor brand")'),
        mockups: z
          .string()
          .regex(/^\d{1,2}$/)
          .optional()
          .describe('how many mockups to make (default 3)'),
      },
    },
    ({ design, shop, mockups }) => ({
      description: 'Choose garments and colours for a design, then generate mockups',
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `I want product mockups of this design for my shop: ${design}`,
              shop ? `About the shop: ${shop}` : '',
              `Make ${mockups ?? '3'} mockups at most. Work through these steps:`,
              '1. If the design is not yet an upload url of this service, store it with upload_design (imageUrl or imageData).',
              '2. Call analyze_design on it: note its dominant colours, whether it has transparency, the recommended print ' +
                'technique and any warnings (tell me about low resolution before going on).',
              "3. Call list_garments and pick garments that suit the shop's customers. For each, choose colours from the " +
                "garment's available colors that contrast with the design's dominant colours (a dark design on light " +
                'fabric, a light one on dark), and the print zone that suits the design (front for a large graphic, ' +
                'left-chest for a small logo).',
              '4. Tell me the plan (garment, colour, zone) and that each generate_mockup call costs 1 token with a live ' +
                "key; then call generate_mockup for each, with garmentImageUrl set to that colour's imageUrl.",
              '5. Show me each mockup with its garment, colour and full-size mockupUrl, and suggest which to list first.',
            ]
              .filter(Boolean)
              .join('\n'),
          },
        },
      ],
    }),
  );
}
