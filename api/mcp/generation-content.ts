// A generation as an MCP tool answer: the resource as structured content; when completed, its thumbnail (about
// 400 px, as stored) as an image block and a link to the full-size mockup; when failed, a tool error (the token
// was refunded); while it renders, a note to ask again with get_generation.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GenerationRow } from '../../db/generations';
import { presentGeneration } from '../http/present';
import type { McpCall } from './call';

export async function generationContent(
  c: McpCall,
  row: GenerationRow,
  opts: { tokensRemaining?: number } = {},
): Promise<CallToolResult> {
  const generation = presentGeneration(c.deps, row);
  const json = { type: 'text' as const, text: JSON.stringify(generation) };
  const balance = opts.tokensRemaining === undefined ? '' : ` Tokens left: ${opts.tokensRemaining}.`;
  if (generation.status === 'failed')
    return {
      isError: true,
      content: [
        { type: 'text', text: `Generation ${row.id} failed: ${generation.error}. The token was refunded.` },
        json,
      ],
      structuredContent: generation,
    };
  if (generation.status !== 'completed' || !generation.mockupUrl)
    return {
      content: [
        {
          type: 'text',
          text: `Generation ${row.id} is ${generation.status}: call get_generation with generationId "${row.id}" in a few seconds.${balance}`,
        },
        json,
      ],
      structuredContent: generation,
    };
  const thumb = row.thumbnailKey ? await c.deps.storage.get(row.thumbnailKey) : null;
  return {
    content: [
      ...(thumb ? [{ type: 'image' as const, data: thumb.body.toString('base64'), mimeType: thumb.contentType }] : []),
      {
        type: 'resource_link',
        uri: generation.mockupUrl,
        name: `${row.id}.jpg`,
        title: 'Full-size mockup',
        mimeType: 'image/jpeg',
      },
      { type: 'text', text: `Mockup ready (full size: ${generation.mockupUrl}).${balance}` },
      json,
    ],
    structuredContent: generation,
  };
}
