// Pictures for docs/templates.md, rendered by the service: a stack started like `npm start` (bench/stack.ts), the
// templates imported through POST /api/v1/templates, the design uploaded through POST /api/v1/upload, and the mockups
// made by POST /api/v1/generate with templateId; the pictures are the service's own files (the template's previewUrl,
// the generation's mockupUrl), converted to PNG for the docs.
//   node --import tsx scripts/template-pictures.ts
// Templates: the synthetic perspective template (test/helpers/template-psd.ts: a smart object in perspective under a
// multiply shadow and a screen highlight), and the PhotoshopAPI corpus file's top smart object (a quilt warp in
// perspective, made in Photoshop).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { startBenchStack } from '../bench/stack';
import { perspectiveTemplatePsd, testDesign } from '../test/helpers/template-psd';

const OUT = path.join(__dirname, '../docs/images');
const CORPUS = path.join(__dirname, '../test/fixtures/templates');
const say = (m: string) => process.stderr.write(`[template-pictures] ${m}\n`);

async function main(): Promise<void> {
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'template-pictures'), say });
  try {
    const base = stack.baseUrl;
    const signup = await fetch(`${base}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `pictures-${randomBytes(4).toString('hex')}@example.test`,
        password: 'Correct-Horse-42',
      }),
    });
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const keyRes = await fetch(`${base}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'pictures' }),
    });
    const auth = { authorization: `Bearer ${((await keyRes.json()) as { key: string }).key}` };
    const fetchOk = async (url: string, init?: RequestInit) => {
      const res = await fetch(url, init);
      if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
      return res;
    };
    const save = async (bytes: Buffer, name: string) => {
      await sharp(bytes).png({ compressionLevel: 9 }).toFile(path.join(OUT, name));
      say(`docs/images/${name}`);
    };

    const d = testDesign();
    const designPng = await sharp(d.data, { raw: { width: d.width, height: d.height, channels: 4 } })
      .png()
      .toBuffer();
    await save(designPng, 'template-design.png');
    const up = new FormData();
    up.append('file', new Blob([new Uint8Array(designPng)]), 'design.png');
    const designUrl = (
      (await (await fetchOk(`${base}/api/v1/upload`, { method: 'POST', headers: auth, body: up })).json()) as {
        url: string;
      }
    ).url;

    const cases = [
      {
        file: perspectiveTemplatePsd(),
        name: 'card.psd',
        own: 'template-perspective-own.png',
        out: 'template-perspective-design.png',
      },
      {
        file: readFileSync(path.join(CORPUS, 'warp-custom-photoshopapi-smart-objects-transformed.psd')),
        name: 'warps.psd',
        own: 'template-warp-own.png',
        out: 'template-warp-design.png',
      },
    ];
    for (const c of cases) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(c.file)]), c.name);
      const tpl = (await (
        await fetchOk(`${base}/api/v1/templates`, { method: 'POST', headers: auth, body: form })
      ).json()) as {
        id: string;
        status: string;
        previewUrl: string;
        smartObjects: { id: string }[];
      };
      if (tpl.status !== 'ready') throw new Error(`${c.name}: ${JSON.stringify(tpl)}`);
      // the top smart object (the one the file shows)
      const smartObjectId = tpl.smartObjects[tpl.smartObjects.length - 1]!.id;
      const gen = (await (
        await fetchOk(`${base}/api/v1/generate`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ templateId: tpl.id, smartObjectId, designUrl }),
        })
      ).json()) as { status: string; mockupUrl: string };
      if (gen.status !== 'completed') throw new Error(`${c.name}: generation ${JSON.stringify(gen)}`);
      await save(Buffer.from(await (await fetchOk(tpl.previewUrl)).arrayBuffer()), c.own);
      await save(Buffer.from(await (await fetchOk(gen.mockupUrl)).arrayBuffer()), c.out);
    }
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
