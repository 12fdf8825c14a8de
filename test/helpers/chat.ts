// The design-chat tests' set-up: a stack whose Gemini and OpenAI SDKs point at the local stand-ins of
// fake-image-providers.ts, an origin serving a reference image, two catalogue blanks; and what the tests measure in
// the images the chat made.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { latestRenderJob, type RenderJobRow } from './db-inspect';
import { startFakeGemini, startFakeOpenAI, type FakeProvider } from './fake-image-providers';
import { account, http, type HttpResult } from './http';
import { lateBound, startStack, type Stack } from './stack';

export const GEMINI_KEY = `gem-${randomSuffix(12)}`;
export const OPENAI_KEY = `sk-${randomSuffix(12)}`;
/** per provider attempt: room for a loaded machine, short enough for the timeout test */
export const TIMEOUT_MS = 2500;
/** the fields of a finished chat's answer */
export const RESULT_FIELDS = [
  'graphicUrl',
  'messageId',
  'mockups',
  'printAssetUrl',
  'threadId',
  'tokensRemaining',
  'tokensSpent',
].sort();

export interface ChatStack {
  stack: Stack;
  gemini: FakeProvider;
  openai: FakeProvider;
  /** the origin's base URL: /ref.png a 640x480 red PNG, /not-an-image text, anything else 404 */
  originUrl(): string;
  /** the first colour's image of two catalogue garments */
  blanks(): string[];
  /** POST /api/chat in the session of `cookie` */
  chat(cookie: string, json: unknown): Promise<HttpResult>;
  /** the user's latest design-chat job, as recorded */
  jobOf(userId: string): Promise<RenderJobRow>;
}

/**
 * The chat stack for the calling suite, started in its `before` hook and stopped in its `after` hook; both stand-ins
 * are reset to answer well before each test.
 */
export function useChatStack(name: string): ChatStack {
  const stack = lateBound<Stack>(`the stack '${name}'`);
  const gemini = lateBound<FakeProvider>('the Gemini stand-in');
  const openai = lateBound<FakeProvider>('the OpenAI stand-in');
  let origin: Server | undefined;
  let originUrl = '';
  let blanks: string[] = [];
  const referencePng = sharp({
    create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 40 } },
  })
    .png()
    .toBuffer();

  before(async () => {
    const [g, o] = await Promise.all([startFakeGemini(GEMINI_KEY), startFakeOpenAI(OPENAI_KEY)]);
    gemini.set(g);
    openai.set(o);
    const ref = await referencePng;
    origin = createServer((req, res) => {
      if (req.url === '/ref.png') res.writeHead(200, { 'content-type': 'image/png' }).end(ref);
      else if (req.url === '/not-an-image') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    stack.set(
      await startStack(name, {
        env: {
          ALLOW_PRIVATE_URLS: 'true',
          GEMINI_API_KEY: GEMINI_KEY,
          GEMINI_BASE_URL: g.baseUrl,
          GEMINI_TIMEOUT_MS: String(TIMEOUT_MS),
          OPENAI_API_KEY: OPENAI_KEY,
          OPENAI_BASE_URL: o.baseUrl,
          OPENAI_TIMEOUT_MS: String(TIMEOUT_MS),
          CHAT_PROVIDER_ATTEMPTS: '2',
        },
      }),
    );
    const acct = await account(stack.ref.baseUrl);
    const list = await http(stack.ref.baseUrl, 'GET', '/api/v1/garments?limit=2', { key: acct.key });
    blanks = list.body.garments.map((x: { colors: { imageUrl: string }[] }) => x.colors[0]!.imageUrl);
    assert.equal(blanks.length, 2);
  });
  beforeEach(() => {
    gemini.get()?.reset();
    openai.get()?.reset();
  });
  after(async () => {
    await stack.get()?.stop();
    await gemini.get()?.stop();
    await openai.get()?.stop();
    origin?.closeAllConnections();
    origin?.close();
  });

  return {
    stack: stack.ref,
    gemini: gemini.ref,
    openai: openai.ref,
    originUrl: () => originUrl,
    blanks: () => blanks,
    chat: (cookie, json) => http(stack.ref.baseUrl, 'POST', '/api/chat', { cookie, json }),
    jobOf: async (userId) => (await latestRenderJob(userId))!,
  };
}

/** An image the service serves: its bytes, sharp's metadata and its content type. */
export async function fetchImage(url: string) {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  const body = Buffer.from(await res.arrayBuffer());
  return { body, meta: await sharp(body).metadata(), type: res.headers.get('content-type') };
}

/** Share of pixels of an image within 16 levels of a colour (alpha ignored). */
export async function colorShare(img: Buffer, hex: string): Promise<number> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const n = parseInt(hex.slice(1), 16);
  const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  let hit = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if (Math.max(...c.map((v, k) => Math.abs(data[i + k]! - v))) <= 16) hit++;
  return hit / (data.length / info.channels);
}

/** Share of clearly blue pixels (Gemini's disc as printed on a blank: shaded, so not its exact colour). */
export async function blueShare(img: Buffer): Promise<number> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let hit = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (b > r + 60 && b > g + 40) hit++;
  }
  return hit / (data.length / info.channels);
}
