// The MCP endpoint (docs/mcp.md): Streamable HTTP at /mcp with the official SDK, stateless (a server and transport
// per POST, JSON answers, no session id), so any API process behind the load balancer answers any message.
// Authentication is Part A's (Authorization: Bearer <API key>); what is refused before the SDK sees the message
// (no key, a bad key, a body over the limit, not JSON) is answered in JSON-RPC's error form with the HTTP status
// and the Part A envelope in error.data. Each tool call then runs under the key's limits (api/mcp/call.ts).
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { requireApiKey } from '../auth/api-keys';
import type { AppDeps } from '../context';
import { ApiError, toApiError } from '../errors';
import { GenerationNotices } from '../generation-notices';
import { JSON_IMAGE_BODY_LIMIT } from '../http/image-body';
import { envelope } from './call';
import { createMcpServer } from './server';

/** The JSON-RPC error code of a refusal answered before the SDK (the HTTP status says the same). */
function rpcCode(e: ApiError): number {
  if (e.status === 401) return -32001; // unauthorized, as MCP servers commonly answer it
  if (e.message === 'Malformed JSON body') return ErrorCode.ParseError;
  if (e.status < 500) return ErrorCode.InvalidRequest;
  return ErrorCode.InternalError;
}

function sendRpcError(res: Response, e: ApiError, id: unknown = null): void {
  for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
  if (e.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="mcp"');
  res.locals.errorCode = e.code;
  res.status(e.status).json({ jsonrpc: '2.0', id, error: { code: rpcCode(e), message: e.message, data: envelope(e) } });
}

const tooLarge = () =>
  new ApiError(
    413,
    'payload_too_large',
    `Request body too large: an MCP message is at most ${JSON_IMAGE_BODY_LIMIT} bytes (a 10 MB image as base64)`,
    { maxBytes: JSON_IMAGE_BODY_LIMIT },
  );

/** The id of the request in the body, if it is one: a refusal answers it. */
const idOf = (body: unknown) =>
  body && typeof body === 'object' && !Array.isArray(body) && 'id' in body ? (body as { id: unknown }).id : null;

/**
 * The endpoint as a middleware, not a router of routes, like GET /metrics: it is another protocol on one URL, not a
 * route of the REST API, so it is in neither the OpenAPI document nor the routes' fuzz suite (test/helpers/routes.ts
 * walks routers only).
 */
export function mcpEndpoint(deps: AppDeps): RequestHandler {
  const r = Router();
  const notices = new GenerationNotices(deps.sql, deps.log);
  // The largest Part A body: a 10 MB image as base64 (upload_design, analyze_design) plus its envelope.
  const body = express.json({ limit: JSON_IMAGE_BODY_LIMIT, strict: true });

  r.post(
    '/mcp',
    (req, _res, next) => {
      if (Number(req.get('content-length')) > JSON_IMAGE_BODY_LIMIT) throw tooLarge();
      if (!req.is('application/json'))
        throw new ApiError(
          415,
          'unsupported_media_type',
          'Send a JSON-RPC message with Content-Type: application/json',
        );
      next();
    },
    body,
    requireApiKey(deps),
    async (req, res) => {
      if (req.body === undefined) throw new ApiError(400, 'invalid_request', 'Malformed JSON body');
      const server = createMcpServer({ deps, req, res, notices });
      // stateless: no session id; JSON answers, so the limits' headers (X-RateLimit-*, X-Tokens-Remaining) can be
      // set by the tool calls before the answer is written
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );

  // No server-to-client stream and no session to delete in stateless mode (the SDK's clients expect 405 here).
  r.all('/mcp', (req, res) => {
    res.setHeader('Allow', 'POST');
    sendRpcError(
      res,
      new ApiError(405, 'invalid_request', `${req.method} is not supported: this MCP server is stateless, POST only`),
    );
  });

  const refusal: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const e = (err as { type?: string }).type === 'entity.too.large' ? tooLarge() : toApiError(err);
    if (e.status >= 500) req.log.error('MCP request failed', { err });
    sendRpcError(res, e, idOf(req.body));
  };
  r.use('/mcp', refusal);
  return function mcpEndpoint(req, res, next) {
    r(req, res, next);
  };
}
