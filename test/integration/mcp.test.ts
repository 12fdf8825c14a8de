// The MCP endpoint (/mcp, docs/mcp.md) driven by the protocol's own clients: the SDK's Client over Streamable HTTP
// and over stdio through the local entry (clients/mcp), and the inspector's CLI. Tools are the REST routes' use
// cases: an upload, a generation charged 1 token, errors as tool errors with Part A codes, the request log (via
// "mcp") and the metric mockup_mcp_tool_calls_total.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { tokenBalance } from '../../db/ledger';
import { inspectorCommand } from '../../scripts/mcp-inspect';
import * as inspect from '../helpers/db-inspect';
import { account, createKey, http } from '../helpers/http';
import { mockupPsd } from '../helpers/psd';
import { uploadAnalysisWorkflowId } from '../../lib/uploads/types';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '../..');
const STDIO_ENTRY = path.join(ROOT, 'clients/mcp/bin/apparel-mockup-mcp.mjs');

const TOOL_NAMES = [
  'analyze_design',
  'bulk_generate',
  'generate_mockup',
  'generate_on_template',
  'get_bulk',
  'get_garment',
  'get_generation',
  'list_garments',
  'list_templates',
  'list_uploads',
  'upload_design',
];

async function connect(stack: Stack, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', stack.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

const design = () =>
  sharp({ create: { width: 600, height: 600, channels: 4, background: '#0033a0' } })
    .png()
    .toBuffer();

/** The Part A envelope of a tool error. */
function toolError(result: any): { code: string; message: string; details?: any } {
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(result.content[0].text).error;
}

describe('MCP endpoint (/mcp)', () => {
  let stack: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  let client: Client;

  before(async () => {
    stack = await startStack('mcp');
    acct = await account(stack.baseUrl);
    client = await connect(stack, acct.key);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('lists the tools with JSON Schemas from the REST schemas, the resources and the prompt', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
    const generate = tools.find((t) => t.name === 'generate_mockup')!;
    assert.match(generate.description!, /1 TOKEN/);
    assert.deepEqual((generate.inputSchema.required as string[]).sort(), ['designUrl', 'garmentId', 'garmentImageUrl']);
    const props = generate.inputSchema.properties as any;
    // the placement schema inlined (no $ref), with the REST route's bounds
    assert.equal(props.placement.properties.scale.minimum, 0.1);
    assert.ok(!JSON.stringify(generate.inputSchema).includes('$ref'));
    assert.equal(generate.outputSchema?.type, 'object');
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'garment://{id}',
      'generation://{id}',
    ]);
    const prompt = await client.getPrompt({
      name: 'mockup-for-shop',
      arguments: { design: 'https://example.test/d.png', shop: 'outdoor brand' },
    });
    assert.match((prompt.messages[0]!.content as any).text, /analyze_design[\s\S]*list_garments[\s\S]*generate_mockup/);
  });

  it('uploads, generates (1 token, an image block that decodes), reads back, and logs each call via mcp', async () => {
    const png = await design();
    const up = await client.callTool({
      name: 'upload_design',
      arguments: { imageData: `data:image/png;base64,${png.toString('base64')}` },
    });
    assert.ok(!up.isError, JSON.stringify(up.content));
    const upload = up.structuredContent as any;
    assert.match(upload.id, /^upl_/);
    assert.deepEqual(upload.dimensions, { width: 600, height: 600 });
    // analysed by the worker as POST /upload's are (workflow upload-analysis-<upload id>)
    const analysing = await stack.client.workflow.getHandle(uploadAnalysisWorkflowId(upload.id)).describe();
    assert.deepEqual(analysing.searchAttributes.AccountId, [acct.userId]);

    // the same bytes by URL: the earlier upload; and analyzed by URL and by data
    const again = await client.callTool({ name: 'upload_design', arguments: { imageUrl: upload.url } });
    assert.equal((again.structuredContent as any)?.id, upload.id, JSON.stringify(again.content));
    for (const args of [{ imageUrl: upload.url }, { imageData: png.toString('base64'), quantity: 100 }]) {
      const analysis = await client.callTool({ name: 'analyze_design', arguments: args });
      assert.ok(!analysis.isError, JSON.stringify(analysis.content));
      assert.deepEqual((analysis.structuredContent as any).colors.dominant, ['#0033A0']);
    }

    const listed = await client.callTool({ name: 'list_garments', arguments: { category: 't-shirts', limit: '1' } });
    const garment = (listed.structuredContent as any).garments[0];
    const color = garment.colors[0];

    const before = await tokenBalance(stack.sql, acct.userId);
    const gen = await client.callTool({
      name: 'generate_mockup',
      arguments: { designUrl: upload.url, garmentId: garment.id, garmentImageUrl: color.imageUrl },
    });
    assert.ok(!gen.isError, JSON.stringify(gen.content));
    const generation = gen.structuredContent as any;
    assert.equal(generation.status, 'completed');
    assert.equal(generation.tokensUsed, 1);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    const content = gen.content as any[];
    const image = content.find((c) => c.type === 'image');
    assert.ok(image, 'an image content block');
    const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
    assert.equal(`image/${meta.format}`, image.mimeType);
    assert.ok(Math.max(meta.width!, meta.height!) <= 400, 'a small image');
    const link = content.find((c) => c.type === 'resource_link');
    assert.equal(link.uri, generation.mockupUrl);
    const full = await fetch(generation.mockupUrl);
    assert.equal(full.status, 200);
    assert.ok((await sharp(Buffer.from(await full.arrayBuffer())).metadata()).width! > meta.width!);

    // read back: the tool and the resource
    const got = await client.callTool({ name: 'get_generation', arguments: { generationId: generation.id } });
    assert.equal((got.structuredContent as any).id, generation.id);
    assert.equal((got.structuredContent as any).status, 'completed');
    const res = await client.readResource({ uri: `generation://${generation.id}` });
    assert.equal(JSON.parse((res.contents[0] as any).text).mockupUrl, generation.mockupUrl);
    const g = await client.readResource({ uri: `garment://${garment.id}` });
    assert.equal(JSON.parse((g.contents[0] as any).text).id, garment.id);
    // ... and the REST route answers the same generation
    const rest = await http(stack.baseUrl, 'GET', `/api/v1/generations/${generation.id}`, { key: acct.key });
    assert.deepEqual(rest.body, generation);

    const log = await http(stack.baseUrl, 'GET', '/api/v1/requests?limit=20', { key: acct.key });
    const mcp = log.body.requests.filter((e: any) => e.via === 'mcp');
    assert.deepEqual(mcp.map((e: any) => [e.route, e.status, e.keyId]).reverse(), [
      ['/mcp/tools/upload_design', 200, acct.keyId],
      ['/mcp/tools/upload_design', 200, acct.keyId],
      ['/mcp/tools/analyze_design', 200, acct.keyId],
      ['/mcp/tools/analyze_design', 200, acct.keyId],
      ['/mcp/tools/list_garments', 200, acct.keyId],
      ['/mcp/tools/generate_mockup', 200, acct.keyId],
      ['/mcp/tools/get_generation', 200, acct.keyId],
      ['/mcp/resources/generation', 200, acct.keyId],
      ['/mcp/resources/garment', 200, acct.keyId],
    ]);
    assert.ok(log.body.requests.filter((e: any) => e.via === 'api').length >= 1);
    const filtered = await http(stack.baseUrl, 'GET', '/api/v1/requests?route=/mcp/tools/generate_mockup', {
      key: acct.key,
    });
    assert.equal(filtered.body.requests.length, 1);

    const metrics = await http(stack.baseUrl, 'GET', '/metrics');
    assert.match(metrics.text, /mockup_mcp_tool_calls_total\{tool="generate_mockup",outcome="ok"\} 1/);
  });

  it('answers tool errors with the Part A code and message: unknown garment, bad arguments, empty balance', async () => {
    const missing = await client.callTool({ name: 'get_garment', arguments: { garmentId: 'no-such-garment' } });
    assert.deepEqual(toolError(missing), { code: 'not_found', message: 'Garment "no-such-garment" not found' });

    const listed = await client.callTool({ name: 'list_garments', arguments: { limit: '1' } });
    const garment = (listed.structuredContent as any).garments[0];
    const body = {
      designUrl: `${stack.baseUrl}/files/none.png`,
      garmentId: 'no-such-garment',
      garmentImageUrl: garment.colors[0].imageUrl,
    };
    const unknown = await client.callTool({ name: 'generate_mockup', arguments: body });
    assert.equal(toolError(unknown).code, 'not_found');

    const bad = await client.callTool({ name: 'generate_mockup', arguments: { ...body, placement: { scale: 5 } } });
    const badError = toolError(bad);
    assert.equal(badError.code, 'invalid_request');
    assert.match(badError.message, /^Invalid arguments: placement\.scale: must be from 0\.1 to 1/);

    const both = await client.callTool({
      name: 'analyze_design',
      arguments: { imageUrl: 'https://example.test/a.png', imageData: 'AAAA' },
    });
    assert.deepEqual(toolError(both), {
      code: 'invalid_request',
      message: 'Supply either imageUrl or imageData, not both',
    });

    const poor = await account(stack.baseUrl);
    await inspect.expireGrants(poor.userId);
    const poorClient = await connect(stack, poor.key);
    try {
      const refused = await poorClient.callTool({
        name: 'generate_mockup',
        arguments: { ...body, garmentId: garment.id },
      });
      const e = toolError(refused);
      assert.equal(e.code, 'insufficient_tokens');
      assert.deepEqual(e.details, { required: 1, available: 0 });
    } finally {
      await poorClient.close();
    }
    assert.deepEqual(await inspect.ownedRowCounts(poor.userId, ['generations']), { generations: 0 });
    const log = await http(stack.baseUrl, 'GET', '/api/v1/requests?route=/mcp/tools/generate_mockup', {
      key: poor.key,
    });
    assert.deepEqual(
      log.body.requests.map((e: any) => [e.status, e.errorCode, e.via]),
      [[402, 'insufficient_tokens', 'mcp']],
    );
  });

  it("lists the key's uploads (list_uploads), as GET /api/v1/uploads does", async () => {
    const t = await account(stack.baseUrl);
    const c = await connect(stack, t.key);
    try {
      const empty = await c.callTool({ name: 'list_uploads', arguments: {} });
      assert.deepEqual(empty.structuredContent, { uploads: [], pagination: { hasMore: false, nextCursor: null } });
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await design())]), 'Blue square.png');
      const uploaded = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: t.key, body: form });
      assert.equal(uploaded.status, 201, uploaded.text);
      const listed = await c.callTool({ name: 'list_uploads', arguments: { q: 'blue', limit: '10' } });
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      const rest = await http(stack.baseUrl, 'GET', '/api/v1/uploads?q=blue&limit=10', { key: t.key });
      assert.deepEqual(listed.structuredContent, rest.body);
      assert.equal((listed.structuredContent as any).uploads[0].id, uploaded.body.id);
      const none = await c.callTool({ name: 'list_uploads', arguments: { q: 'nothing like it' } });
      assert.deepEqual((none.structuredContent as any).uploads, []);
    } finally {
      await c.close();
    }
  });

  it('renders in bulk (bulk_generate: one charge for every item) and follows it with get_bulk', async () => {
    const t = await account(stack.baseUrl);
    const c = await connect(stack, t.key);
    try {
      const before = await tokenBalance(stack.sql, t.userId);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await design())]), 'Bulk square.png');
      const uploaded = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: t.key, body: form });
      assert.equal(uploaded.status, 201, uploaded.text);
      const garments = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: t.key });
      const garmentId = garments.body.garments[0].id;
      const started = await c.callTool({
        name: 'bulk_generate',
        arguments: {
          designs: [{ designUrl: uploaded.body.url }],
          targets: [{ garmentId, colors: ['White', 'Black'] }],
        },
      });
      assert.ok(!started.isError, JSON.stringify(started.content));
      const bulk = started.structuredContent as any;
      assert.match(bulk.id, /^blk_/);
      assert.deepEqual([bulk.status, bulk.total, bulk.tokensCharged], ['running', 2, 2]);
      assert.equal(await tokenBalance(stack.sql, t.userId), before - 2);
      let seen: any;
      await waitUpTo(
        async () => {
          const got = await c.callTool({ name: 'get_bulk', arguments: { bulkId: bulk.id } });
          assert.ok(!got.isError, JSON.stringify(got.content));
          seen = got.structuredContent;
          return seen.finishedAt;
        },
        { ms: 120_000, every: 200 },
      );
      assert.equal(seen.status, 'completed');
      assert.deepEqual(
        seen.generations.map((g: any) => [g.color, g.status]),
        [
          ['White', 'completed'],
          ['Black', 'completed'],
        ],
      );
      assert.ok(seen.archiveUrl);
      // the same resource as the REST route
      const rest = await http(stack.baseUrl, 'GET', `/api/v1/generate/bulk/${bulk.id}`, { key: t.key });
      assert.deepEqual(seen, rest.body);
      // a bulk above the limit is a tool error with the REST route's code, nothing charged
      const tooMany = await c.callTool({
        name: 'bulk_generate',
        arguments: {
          designs: Array.from({ length: 100 }, (_, i) => ({ designUrl: `${uploaded.body.url}?v=${i}` })),
          targets: [{ garmentId, zones: ['front', 'back'] }],
        },
      });
      assert.equal(toolError(tooMany).code, 'invalid_request');
      const missing = await c.callTool({ name: 'get_bulk', arguments: { bulkId: 'blk_1_nothere' } });
      assert.equal(toolError(missing).code, 'not_found');
      assert.equal(await tokenBalance(stack.sql, t.userId), before - 2);
    } finally {
      await c.close();
    }
  });

  it("lists the key's templates (list_templates), as GET /api/v1/templates does", async () => {
    const t = await account(stack.baseUrl);
    const c = await connect(stack, t.key);
    try {
      const empty = await c.callTool({ name: 'list_templates', arguments: {} });
      assert.deepEqual(empty.structuredContent, { templates: [], pagination: { hasMore: false, nextCursor: null } });
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(mockupPsd())]), 'Tee mockup.psd');
      const imported = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: t.key, body: form });
      assert.ok(imported.status === 201 || imported.status === 202, imported.text);
      const listed = await c.callTool({ name: 'list_templates', arguments: { limit: '10' } });
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      const rest = await http(stack.baseUrl, 'GET', '/api/v1/templates?limit=10', { key: t.key });
      assert.deepEqual(listed.structuredContent, rest.body);
      assert.equal((listed.structuredContent as any).templates[0].id, imported.body.id);
    } finally {
      await c.close();
    }
  });

  it('generates on a template (generate_on_template): 1 token, the generation REST answers, errors as tool errors', async () => {
    const t = await account(stack.baseUrl);
    const c = await connect(stack, t.key);
    try {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(mockupPsd())]), 'Tee mockup.psd');
      const imported = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: t.key, body: form });
      assert.equal(imported.status, 201, imported.text);
      const up = await c.callTool({
        name: 'upload_design',
        arguments: { imageData: (await design()).toString('base64') },
      });
      const designUrl = (up.structuredContent as any).url;
      const before = await tokenBalance(stack.sql, t.userId);
      const gen = await c.callTool({
        name: 'generate_on_template',
        arguments: { templateId: imported.body.id, designUrl, placement: { scale: 0.5 } },
      });
      assert.ok(!gen.isError, JSON.stringify(gen.content));
      const g = gen.structuredContent as any;
      assert.equal(g.status, 'completed');
      assert.equal(g.templateId, imported.body.id);
      assert.deepEqual(g.designs, [
        { smartObjectId: '1', designUrl, placement: { x: 50, y: 50, scale: 0.5, rotation: 0 } },
      ]);
      assert.equal(await tokenBalance(stack.sql, t.userId), before - 1);
      assert.ok(
        (gen.content as any[]).some((b) => b.type === 'image'),
        'a small image',
      );
      const rest = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.id}`, { key: t.key });
      assert.deepEqual(rest.body, g);

      const unknown = await c.callTool({
        name: 'generate_on_template',
        arguments: { templateId: 'tpl_1_x', designUrl },
      });
      assert.equal(toolError(unknown).code, 'not_found');
      const badSo = await c.callTool({
        name: 'generate_on_template',
        arguments: { templateId: imported.body.id, designUrl, smartObjectId: '5' },
      });
      const err = toolError(badSo);
      assert.equal(err.code, 'invalid_request');
      assert.equal(err.details.field, 'smartObjectId');
      const both = await c.callTool({
        name: 'generate_on_template',
        arguments: { templateId: imported.body.id, designUrl, designs: [{ smartObjectId: '1', designUrl }] },
      });
      assert.equal(toolError(both).code, 'invalid_request');
      assert.equal(await tokenBalance(stack.sql, t.userId), before - 1);
    } finally {
      await c.close();
    }
  });

  it('refuses a missing or bad key with 401 in the JSON-RPC error form, before any tool runs', async () => {
    const bad = `amk_live_${'f'.repeat(64)}`;
    await assert.rejects(connect(stack, bad), (err: any) => {
      assert.equal(err.code, 401);
      assert.match(err.message, /"code":-32001/);
      assert.match(err.message, /"data":\{"error":\{"code":"unauthorized","message":"Invalid API key"\}\}/);
      return true;
    });
    const raw = await fetch(new URL('/mcp', stack.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    assert.equal(raw.status, 401);
    assert.equal(raw.headers.get('www-authenticate'), 'Bearer realm="mcp"');
    assert.deepEqual(await raw.json(), {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32001,
        message: 'Missing API key: send Authorization: Bearer <API_KEY>',
        data: { error: { code: 'unauthorized', message: 'Missing API key: send Authorization: Bearer <API_KEY>' } },
      },
    });
    // a key revoked after the client connected: its next call is refused the same way
    const k = await createKey(stack.baseUrl, acct.cookie, { name: 'revoked soon' });
    const c = await connect(stack, k.key);
    await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${k.id}`, { cookie: acct.cookie });
    await assert.rejects(c.callTool({ name: 'list_garments', arguments: {} }), (err: any) => err.code === 401);
    await c.close();
  });

  it('test keys run in test mode: no token spent, a test generation', async () => {
    const test = await createKey(stack.baseUrl, acct.cookie, { name: 'mcp test', mode: 'test' });
    const c = await connect(stack, test.key);
    try {
      const listed = await c.callTool({ name: 'list_garments', arguments: { limit: '1' } });
      const garment = (listed.structuredContent as any).garments[0];
      const up = await c.callTool({
        name: 'upload_design',
        arguments: { imageData: (await design()).toString('base64') },
      });
      const before = await tokenBalance(stack.sql, acct.userId);
      const gen = await c.callTool({
        name: 'generate_mockup',
        arguments: {
          designUrl: (up.structuredContent as any).url,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0].imageUrl,
        },
      });
      assert.ok(!gen.isError, JSON.stringify(gen.content));
      assert.equal((gen.structuredContent as any).livemode, false);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    } finally {
      await c.close();
    }
  });

  it('refuses GET (no stream in stateless mode) and a body over the Part A limit', async () => {
    const get = await fetch(new URL('/mcp', stack.baseUrl), {
      headers: { authorization: `Bearer ${acct.key}`, accept: 'text/event-stream' },
    });
    assert.equal(get.status, 405);
    const huge = await fetch(new URL('/mcp', stack.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acct.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'upload_design', arguments: { imageData: 'A'.repeat(15 * 1024 * 1024) } },
      }),
    });
    assert.equal(huge.status, 413);
    assert.equal(((await huge.json()) as any).error.data.error.code, 'payload_too_large');
  });

  it('serves desktop clients through the stdio entry (StdioClientTransport)', async () => {
    const stdio = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [STDIO_ENTRY],
        env: { PATH: process.env.PATH ?? '', MOCKUP_API_URL: stack.baseUrl, MOCKUP_API_KEY: acct.key },
        stderr: 'pipe',
      }),
    );
    try {
      assert.deepEqual((await stdio.listTools()).tools.map((t) => t.name).sort(), TOOL_NAMES);
      const missing = await stdio.callTool({ name: 'get_garment', arguments: { garmentId: 'nope' } });
      assert.equal(toolError(missing).code, 'not_found');
      const listed = await stdio.callTool({ name: 'list_garments', arguments: { limit: '2' } });
      assert.equal((listed.structuredContent as any).garments.length, 2);
    } finally {
      await stdio.close();
    }
  });

  it("the inspector's CLI lists the tools (--cli --method tools/list)", async () => {
    // as `npm run mcp:inspect -- --method tools/list` runs it
    const c = inspectorCommand(stack.baseUrl, acct.key, ['--method', 'tools/list']);
    const { stdout } = await promisify(execFile)(c.command, c.args, { cwd: c.cwd, timeout: 30_000 });
    const listed = JSON.parse(stdout);
    assert.deepEqual(listed.tools.map((t: any) => t.name).sort(), TOOL_NAMES);
  });
});

describe('MCP endpoint: the key rate limits each tool call', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('mcp-limits', { worker: false, env: { RATE_LIMIT_GARMENTS_PER_MINUTE: '2' } });
  });
  after(async () => {
    await stack?.stop();
  });

  it("spends the REST endpoint's budget per call, refuses with a rate_limited tool error, and counts it", async () => {
    const a = await account(stack.baseUrl);
    const client = await connect(stack, a.key);
    try {
      // the handshake and listings are not counted: only tool calls and resource reads
      await client.listTools();
      await client.listTools();
      assert.ok(!(await client.callTool({ name: 'list_garments', arguments: { limit: '1' } })).isError);
      // the REST route shares the same per-key garments budget
      assert.equal((await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: a.key })).status, 200);
      const refused = toolError(await client.callTool({ name: 'get_garment', arguments: { garmentId: 'x' } }));
      assert.equal(refused.code, 'rate_limited');
      assert.equal(refused.details.scope, 'garments-minute');
      assert.equal(refused.details.limit, 2);
      // other budgets are untouched
      const other = await client.callTool({ name: 'get_generation', arguments: { generationId: 'gen_1_abc' } });
      assert.equal(toolError(other).code, 'not_found');
    } finally {
      await client.close();
    }
    const log = await http(stack.baseUrl, 'GET', '/api/v1/requests?status=4xx', { key: a.key });
    assert.deepEqual(
      log.body.requests.map((e: any) => [e.route, e.status, e.errorCode, e.via]),
      [
        ['/mcp/tools/get_generation', 404, 'not_found', 'mcp'],
        ['/mcp/tools/get_garment', 429, 'rate_limited', 'mcp'],
      ],
    );
    const metrics = await http(stack.baseUrl, 'GET', '/metrics');
    assert.match(metrics.text, /mockup_mcp_tool_calls_total\{tool="get_garment",outcome="rate_limited"\} 1/);
  });
});
