#!/usr/bin/env node
// @ts-check
// apparel-mockup-mcp: a local stdio MCP server for desktop assistants that speak only stdio. Every message is
// forwarded, unchanged, to the service's Streamable HTTP endpoint (<MOCKUP_API_URL>/mcp) with the API key, and every
// answer comes back the same way: the tools, limits, tokens and mode are the service's (docs/mcp.md). Both ends are
// the official SDK's transports. Environment: MOCKUP_API_URL (the service's base URL), MOCKUP_API_KEY (an API key).
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const say = (/** @type {string} */ msg) => process.stderr.write(`apparel-mockup-mcp: ${msg}\n`);

const base = process.env.MOCKUP_API_URL;
const key = process.env.MOCKUP_API_KEY;
if (!base || !key) {
  say('set MOCKUP_API_URL (e.g. https://mockups.example.com) and MOCKUP_API_KEY (an API key of your account)');
  process.exit(2);
}
/** @type {URL} */
let endpoint;
try {
  const u = new URL(base);
  endpoint = /\/mcp\/?$/.test(u.pathname) ? u : new URL(`${u.pathname.replace(/\/+$/, '')}/mcp`, u);
} catch {
  say(`MOCKUP_API_URL is not a URL: ${base}`);
  process.exit(2);
}

const remote = new StreamableHTTPClientTransport(endpoint, {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const local = new StdioServerTransport();
/** @type {Set<string | number>} ids of initialize requests, whose answers name the protocol version */
const initializing = new Set();

local.onmessage = (message) => {
  const id = 'id' in message && 'method' in message ? message.id : undefined;
  if (id !== undefined && 'method' in message && message.method === 'initialize') initializing.add(id);
  remote.send(message).catch((/** @type {any} */ err) => {
    say(`forwarding failed: ${err?.message ?? err}`);
    // a request must be answered, or the assistant waits for ever: the service's refusal (e.g. 401) as an error
    if (id !== undefined)
      void local.send({
        jsonrpc: '2.0',
        id,
        error: { code: err?.code === 401 ? -32001 : -32603, message: String(err?.message ?? err) },
      });
  });
};
remote.onmessage = (message) => {
  if ('id' in message && initializing.delete(message.id) && 'result' in message) {
    const version = /** @type {{ protocolVersion?: unknown }} */ (message.result).protocolVersion;
    if (typeof version === 'string') remote.setProtocolVersion(version);
  }
  void local.send(message);
};
remote.onerror = (err) => say(err.message);
local.onclose = () => void remote.close().finally(() => process.exit(0));

await remote.start();
await local.start();
