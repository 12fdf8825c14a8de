// The MCP server of one HTTP request (stateless Streamable HTTP, docs/mcp.md): the official SDK's McpServer with the
// tools answered by our own tools/list and tools/call handlers (so arguments are parsed by the REST routes' own zod
// schemas and a refusal is a tool error carrying the Part A code and message), the resources and the prompt.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { notFound } from '../errors';
import { envelope, gated, type McpCall } from './call';
import { toolSchema } from './json-schema';
import { registerPrompts, registerResources } from './resources';
import { TOOLS, type McpTool } from './tools';

export const MCP_SERVER_NAME = 'apparel-mockup';
export const MCP_SERVER_VERSION = '1.0.0';

const INSTRUCTIONS =
  'Apparel mockups: upload a design (upload_design), pick a garment and colour (list_garments), then ' +
  'generate_mockup (1 token with a live key; test keys spend none and watermark the mockup). analyze_design checks ' +
  'printability for free. Errors carry the API error code (e.g. insufficient_tokens, rate_limited, not_found).';

// Tool listings are the same for every request: built once.
let listing: Tool[] | undefined;
export function toolListing(): Tool[] {
  listing ??= TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolSchema(t.input, 'input'),
    ...(t.output ? { outputSchema: toolSchema(t.output, 'output') } : {}),
    annotations: t.annotations,
  }));
  return listing;
}

const byName = new Map<string, McpTool>(TOOLS.map((t) => [t.name, t]));

async function callTool(c: McpCall, name: string, args: unknown): Promise<CallToolResult> {
  const t = byName.get(name);
  const outcome = await gated(
    c,
    { name: t ? name : 'unknown', route: `/mcp/tools/${t ? name : 'unknown'}`, endpoint: t?.endpoint ?? 'other' },
    () => {
      if (!t) throw notFound(`No tool named ${JSON.stringify(name)}: tools/list names them`);
      return t.run(c, args);
    },
  );
  if (outcome.ok) return outcome.value;
  // The envelope as text only: clients check structuredContent against the tool's outputSchema even in an error.
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope(outcome.error)) }] };
}

export function createMcpServer(c: McpCall): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION, title: 'Apparel mockups' },
    { instructions: INSTRUCTIONS },
  );
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing() }));
  server.server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(c, request.params.name, request.params.arguments),
  );
  registerResources(server, c);
  registerPrompts(server);
  return server;
}
