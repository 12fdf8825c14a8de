// Local stand-ins for the two image providers, speaking their real wire formats so the official SDKs accept them
// (checked against @google/genai 3.1 and openai 7.57 in node_modules, docs/chat.md):
//
//   Gemini  POST <base>/v1beta/models/<model>:generateContent, header x-goog-api-key, JSON body
//           {contents: [{role, parts: [{text} | {inlineData: {mimeType, data}}]}], generationConfig}
//           → {candidates: [{content: {role: "model", parts: [{inlineData: {mimeType, data}}]}, finishReason}]}
//           errors: HTTP status with {error: {code, message, status}}; a refusal: a candidate without image parts
//           (finishReason PROHIBITED_CONTENT) or promptFeedback.blockReason.
//   OpenAI  POST <base>/v1/images/generations (JSON) and /v1/images/edits (multipart, image / image[] files),
//           Authorization: Bearer → {created, data: [{b64_json}]}; errors {error: {message, type, param, code}}.
//
// Each answers a deterministic PNG of its own (Gemini a blue disc, OpenAI a green square, on white), so a test can
// tell from the pixels which provider made a graphic. A test chooses the behaviour per request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { sleep } from './wait';

export type Behavior =
  | 'ok'
  | 'error500'
  | 'error429'
  | 'error400'
  | 'refuse'
  /** never answers (the client's timeout has to end it) */
  | 'hang'
  /** answers ok after `slowMs` */
  | 'slow'
  /** answers a well-formed image with nothing on it (all white) */
  | 'blank';

export interface RecordedImage {
  mimeType: string;
  data: Buffer;
}

export interface RecordedRequest {
  path: string;
  /** the SDK's model name */
  model: string;
  apiKey: string | undefined;
  text: string;
  images: RecordedImage[];
  /** Gemini: generationConfig; OpenAI: the other form/JSON fields */
  config: Record<string, unknown>;
  behavior: Behavior;
}

export interface FakeProvider {
  /** the base URL to give the SDK (GEMINI_BASE_URL, or OPENAI_BASE_URL which includes /v1) */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** decides each request's behaviour (default: always ok) */
  behave: (req: RecordedRequest, n: number) => Behavior;
  slowMs: number;
  /** awaited before answering, if set (a test holds a request open with it) */
  onRequest?: (req: RecordedRequest) => Promise<void>;
  /** the PNG this provider answers with */
  image: () => Promise<Buffer>;
  reset(): void;
  stop(): Promise<void>;
}

const images = new Map<string, Promise<Buffer>>();
/** A 1024x1024 PNG: a shape in one colour on a flat white background, as image models answer. */
export function providerImage(kind: 'disc' | 'square', color: string): Promise<Buffer> {
  const id = `${kind}-${color}`;
  let p = images.get(id);
  if (!p) {
    const shape =
      kind === 'disc'
        ? `<circle cx="512" cy="512" r="300" fill="${color}"/>`
        : `<rect x="262" y="262" width="500" height="500" fill="${color}"/>`;
    p = sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><rect width="1024" height="1024" fill="#ffffff"/>${shape}</svg>`,
      ),
    )
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
    images.set(id, p);
  }
  return p;
}

/** A 1024x1024 PNG of flat white: an image with nothing but background. */
let blankPng: Promise<Buffer> | undefined;
export function blankImage(): Promise<Buffer> {
  blankPng ??= sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  return blankPng;
}

export const GEMINI_COLOR = '#2360d8';
export const OPENAI_COLOR = '#2e9e48';

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

function fakeOf(apiKey: string, image: () => Promise<Buffer>): FakeProvider {
  const f: FakeProvider = {
    baseUrl: '',
    apiKey,
    requests: [],
    behave: () => 'ok',
    slowMs: 1000,
    onRequest: undefined,
    image,
    reset() {
      f.requests.length = 0;
      f.behave = () => 'ok';
      f.onRequest = undefined;
      f.slowMs = 1000;
    },
    stop: async () => {},
  };
  return f;
}

/** Holds hung requests so stop() can end them. */
function tracker() {
  const open = new Set<ServerResponse>();
  return {
    add: (res: ServerResponse) => {
      open.add(res);
      res.on('close', () => open.delete(res));
    },
    endAll: () => {
      for (const r of open) r.destroy();
    },
  };
}

export async function startFakeGemini(apiKey = 'test-gemini-key'): Promise<FakeProvider> {
  const p = fakeOf(apiKey, () => providerImage('disc', GEMINI_COLOR));
  const hung = tracker();
  const server = createServer(async (req, res) => {
    const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(req.url ?? '');
    const body = await readBody(req);
    if (req.method !== 'POST' || !m) {
      json(res, 404, { error: { code: 404, message: `no route ${req.method} ${req.url}`, status: 'NOT_FOUND' } });
      return;
    }
    const key = req.headers['x-goog-api-key'] as string | undefined;
    if (key !== p.apiKey) {
      json(res, 400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } });
      return;
    }
    const parsed = JSON.parse(body.toString('utf8')) as {
      contents: { role?: string; parts: { text?: string; inlineData?: { mimeType: string; data: string } }[] }[];
      generationConfig?: Record<string, unknown>;
    };
    const parts = parsed.contents.flatMap((c) => c.parts);
    const rec: RecordedRequest = {
      path: req.url!,
      model: decodeURIComponent(m[1]!),
      apiKey: key,
      text: parts.flatMap((x) => (x.text ? [x.text] : [])).join('\n'),
      images: parts.flatMap((x) =>
        x.inlineData ? [{ mimeType: x.inlineData.mimeType, data: Buffer.from(x.inlineData.data, 'base64') }] : [],
      ),
      config: parsed.generationConfig ?? {},
      behavior: 'ok',
    };
    rec.behavior = p.behave(rec, p.requests.length);
    p.requests.push(rec);
    await p.onRequest?.(rec);
    switch (rec.behavior) {
      case 'hang':
        hung.add(res);
        return;
      case 'error500':
        json(res, 500, { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } });
        return;
      case 'error429':
        json(res, 429, { error: { code: 429, message: 'Resource has been exhausted.', status: 'RESOURCE_EXHAUSTED' } });
        return;
      case 'error400':
        json(res, 400, {
          error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' },
        });
        return;
      case 'refuse':
        json(res, 200, {
          candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'PROHIBITED_CONTENT', index: 0 }],
          modelVersion: rec.model,
        });
        return;
      case 'slow':
        await sleep(p.slowMs);
        break;
      case 'ok':
      case 'blank':
        break;
    }
    json(res, 200, {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              {
                inlineData: {
                  mimeType: 'image/png',
                  data: (rec.behavior === 'blank' ? await blankImage() : await p.image()).toString('base64'),
                },
              },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
      modelVersion: rec.model,
    });
  });
  const port = await listen(server);
  p.baseUrl = `http://127.0.0.1:${port}`;
  p.stop = async () => {
    hung.endAll();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return p;
}

export async function startFakeOpenAI(apiKey = 'test-openai-key'): Promise<FakeProvider> {
  const p = fakeOf(apiKey, () => providerImage('square', OPENAI_COLOR));
  const hung = tracker();
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '';
    if (req.method !== 'POST' || (path !== '/v1/images/generations' && path !== '/v1/images/edits')) {
      json(res, 404, { error: { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error' } });
      return;
    }
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${p.apiKey}`) {
      json(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
      return;
    }
    const config: Record<string, unknown> = {};
    const imgs: RecordedImage[] = [];
    let text = '';
    let model = '';
    if (path === '/v1/images/generations') {
      const j = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      text = String(j.prompt ?? '');
      model = String(j.model ?? '');
      for (const [k, v] of Object.entries(j)) if (k !== 'prompt') config[k] = v;
    } else {
      const form = await new Response(new Uint8Array(body), {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      for (const [k, v] of form.entries()) {
        if (typeof v === 'string') {
          if (k === 'prompt') text = v;
          else if (k === 'model') model = v;
          else config[k] = v;
        } else {
          config.imageField = k;
          imgs.push({ mimeType: v.type, data: Buffer.from(await v.arrayBuffer()) });
        }
      }
    }
    const rec: RecordedRequest = { path, model, apiKey: auth, text, images: imgs, config, behavior: 'ok' };
    rec.behavior = p.behave(rec, p.requests.length);
    p.requests.push(rec);
    await p.onRequest?.(rec);
    switch (rec.behavior) {
      case 'hang':
        hung.add(res);
        return;
      case 'error500':
        json(res, 500, {
          error: { message: 'The server had an error processing your request.', type: 'server_error' },
        });
        return;
      case 'error429':
        json(res, 429, {
          error: { message: 'Rate limit reached for images.', type: 'requests', code: 'rate_limit_exceeded' },
        });
        return;
      case 'error400':
        json(res, 400, {
          error: { message: "Invalid value for 'size'.", type: 'invalid_request_error', param: 'size' },
        });
        return;
      case 'refuse':
        json(res, 400, {
          error: {
            message: 'Your request was rejected as a result of our safety system.',
            type: 'image_generation_user_error',
            param: null,
            code: 'moderation_blocked',
          },
        });
        return;
      case 'slow':
        await sleep(p.slowMs);
        break;
      case 'ok':
      case 'blank':
        break;
    }
    json(res, 200, {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json: (rec.behavior === 'blank' ? await blankImage() : await p.image()).toString('base64') }],
      usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50 },
    });
  });
  const port = await listen(server);
  p.baseUrl = `http://127.0.0.1:${port}/v1`;
  p.stop = async () => {
    hung.endAll();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return p;
}
