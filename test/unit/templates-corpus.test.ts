// Fidelity of the templates engine on PSDs made in Photoshop, but for two ag-psd files another program wrote (asserted
// below; test/fixtures/templates/README.md lists each file's source and licence): each renders with its own
// smart-object content within the PSNR of the composite its writer saved in the file. The figures are in docs/templates.md (printed by this test with TEMPLATES_TABLE=1).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readPsd } from 'ag-psd';
import { parseTemplate, prepareTemplate, psnr, renderOwnContent } from '../../lib/templates';
import { paintOwn } from '../../lib/templates/paint';
import type { TNode } from '../../lib/templates/model';

const FIX = path.join(__dirname, '../fixtures/templates');

interface Case {
  file: string;
  covers: string;
  /** dB the render must reach */
  min: number;
  /** 'stored': smart objects from Photoshop's stored pixels (isolates the compositor from resampling) */
  smartContent?: 'stored';
}

const CASES: Case[] = [
  {
    file: 'perspective-ag-psd-placed-transform.psd',
    covers: 'perspective smart object (nonAffineTransform), embedded PSD',
    min: 35,
  },
  {
    file: 'smart-objects-ag-psd.psd',
    covers: 'two smart objects, embedded JPEGs reduced 2.3x, identity custom meshes',
    min: 35,
  },
  {
    file: 'warp-custom-photoshopapi-smart-objects-transformed.psd',
    covers: 'custom bezier and quilt warps, with and without perspective (eleven smart objects, the top one shows)',
    min: 35,
  },
  { file: 'warp-cylinder-ag-psd.psd', covers: 'named warp: cylinder, embedded PSB', min: 30 },
  {
    file: 'blend-modes-smart-objects-psd-tools.psd',
    covers: "27 blend modes on smart objects (Photoshop's smart-object pixels)",
    min: 35,
    smartContent: 'stored',
  },
  ...readdirSync(path.join(FIX, 'blend-modes'))
    .filter((f) => f !== 'dissolve.psd')
    .map((f) => ({
      file: `blend-modes/${f}`,
      covers: `blend mode ${f.replace('.psd', '')}, opacity 50 %, transparency`,
      min: 35,
    })),
  ...readdirSync(FIX)
    .filter((f) => f.startsWith('layers-'))
    .map((f) => ({ file: f, covers: f.replace(/^layers-|-psd-tools\.psd$/g, ''), min: 35 })),
];

const table: string[] = [];

/** An RGBA layer over black, opaque (a layer's own pixels compared where its shape matters, not hidden by white). */
function overBlack(d: Uint8Array | Uint8ClampedArray, width: number, height: number) {
  const o = Buffer.alloc(d.length);
  for (let i = 0; i < d.length; i += 4) {
    const a = d[i + 3]! / 255;
    o[i] = d[i]! * a;
    o[i + 1] = d[i + 1]! * a;
    o[i + 2] = d[i + 2]! * a;
    o[i + 3] = 255;
  }
  return { width, height, data: o };
}

describe('templates engine: fidelity on Photoshop files', function () {
  this.timeout(300000);

  after(() => {
    if (process.env.TEMPLATES_TABLE) process.stdout.write(`\n${table.join('\n')}\n`);
  });

  for (const c of CASES) {
    it(`${c.file} >= ${c.min} dB`, () => {
      const t = parseTemplate(readFileSync(path.join(FIX, c.file)));
      assert.ok(t.photoshopComposite, "the file carries Photoshop's composite");
      const v = psnr(renderOwnContent(prepareTemplate(t, { smartContent: c.smartContent })), t.photoshopComposite);
      table.push(`| ${c.file} | ${c.covers} | ${v === Infinity ? 'identical' : v.toFixed(2)} |`);
      assert.ok(v >= c.min, `PSNR ${v.toFixed(2)} dB < ${c.min}`);
    });
  }

  it("dissolve: measured, not asserted (Photoshop's own noise pattern)", () => {
    const t = parseTemplate(readFileSync(path.join(FIX, 'blend-modes/dissolve.psd')));
    const v = psnr(renderOwnContent(prepareTemplate(t)), t.photoshopComposite!);
    table.push(`| blend-modes/dissolve.psd | dissolve (pattern differs by design) | ${v.toFixed(2)} |`);
    assert.ok(Number.isFinite(v));
  });

  // the layers of this file lie over each other, so the composite shows the top one only: each smart object is also
  // compared with the pixels Photoshop stored for it
  it('custom and quilt warps, perspective and rotation: every smart object >= 35 dB of its own stored pixels', () => {
    const file = 'warp-custom-photoshopapi-smart-objects-transformed.psd';
    const t = parseTemplate(readFileSync(path.join(FIX, file)));
    const nodes: Extract<TNode, { kind: 'smart' }>[] = [];
    const walk = (ns: TNode[], group: string) => {
      for (const n of ns) {
        if (n.kind === 'group') walk(n.children, `${n.name}/`);
        else if (n.kind === 'smart') nodes.push({ ...n, name: `${group}${n.name}` });
      }
    };
    walk(t.root, '');
    assert.equal(nodes.length, 11);
    assert.equal(nodes.filter((n) => t.smart[n.so]!.info.warp === 'custom').length, 8);
    for (const node of nodes) {
      const b = node.img!;
      const own = paintOwn(t.smart[node.so]!, null, { x: b.x, y: b.y, w: b.w, h: b.h })!;
      const v = psnr(overBlack(own, b.w, b.h), overBlack(b.data, b.w, b.h));
      table.push(`| ${file} · ${node.name} | ${t.smart[node.so]!.info.warp} (the layer's pixels) | ${v.toFixed(2)} |`);
      assert.ok(v >= 35, `${node.name}: PSNR ${v.toFixed(2)} dB`);
    }
  });

  // Photoshop writes its version-info resource (1057, writer "Adobe Photoshop") and XMP naming itself in every file
  // it saves (300 of the 311 psd-tools, ag-psd and PhotoshopAPI files ag-psd reads); these two ag-psd files carry
  // neither (8 resources in ascending order, the same in their embedded smart-object documents), so their stored
  // pixels were drawn by another program and are no measure of Photoshop (docs/templates.md, fidelity limits)
  it('which corpus files Photoshop wrote: all but the two ag-psd files without its resources', () => {
    const files = [...readdirSync(FIX), ...readdirSync(path.join(FIX, 'blend-modes')).map((f) => `blend-modes/${f}`)];
    const notPhotoshop = files
      .filter((f) => f.endsWith('.psd'))
      .filter((f) => {
        const r = readPsd(readFileSync(path.join(FIX, f)), {
          skipLayerImageData: true,
          skipCompositeImageData: true,
          skipThumbnail: true,
          skipLinkedFilesData: true,
        }).imageResources;
        return !(r?.versionInfo?.writerName === 'Adobe Photoshop' && /Adobe Photoshop/.test(r.xmpMetadata ?? ''));
      });
    assert.deepEqual(notPhotoshop.sort(), [
      'perspective-ag-psd-placed-transform.psd',
      'warp-custom-ag-psd-mesh-transform.psd',
    ]);
  });

  it("custom bezier warp (a file Photoshop did not write): the hidden smart object against the pixels its writer stored; the gap is the content reaching past the patch's right and bottom edges", () => {
    const t = parseTemplate(readFileSync(path.join(FIX, 'warp-custom-ag-psd-mesh-transform.psd')));
    const node = t.root.find((n): n is Extract<TNode, { kind: 'smart' }> => n.kind === 'smart')!;
    const sd = t.smart[node.so]!;
    assert.equal(sd.info.warp, 'custom');
    const g = sd.geometry;
    assert.ok(g.warp.kind === 'mesh');
    const b = node.img!;
    const f = { x: b.x, y: b.y, w: b.w, h: b.h };
    // over black: the content is white, so a comparison over white would hide the warp
    const measure = (geometry: typeof g) =>
      psnr(overBlack(paintOwn({ ...sd, geometry }, null, f)!, b.w, b.h), overBlack(b.data, b.w, b.h));
    const v = measure(g);
    table.push(
      `| warp-custom-ag-psd-mesh-transform.psd | custom bezier mesh warp (layer pixels, the layer is hidden) | ${v.toFixed(2)} |`,
    );
    assert.ok(v >= 27.5, `PSNR ${v.toFixed(2)} dB`);
    // The diagnosis (docs/templates.md, fidelity limits), not a rule the engine applies: in the stored pixels the
    // content reaches 0.84 content px past the patch's right edge (u = 1) and 0.57 px past its bottom (v = 1), its
    // left and top edges where the file puts them, i.e. the patch spans content [0, W - 0.84] x [0, H - 0.57].
    // Drawn so, the same mesh, sampler and edge antialiasing reach 42.8 dB; a uniform scale of the drawing about
    // the transform's corner (the earlier reading, 1.0022) reaches 38.2 dB and misses the bottom edge's profile.
    const overshoot = measure({ ...g, warp: { ...g.warp, sx: [0, g.width - 0.84], sy: [0, g.height - 0.57] } });
    const [x0, y0] = g.quad[0];
    const quad = g.quad.map(([x, y]) => [x0 + (x - x0) * 1.0022, y0 + (y - y0) * 1.0022]) as typeof g.quad;
    const scaled = measure({ ...g, quad });
    assert.ok(overshoot >= 40, `content past the patch's right/bottom edges: PSNR ${overshoot.toFixed(2)} dB`);
    assert.ok(
      overshoot >= scaled + 3,
      `overshoot ${overshoot.toFixed(2)} dB vs scaled drawing ${scaled.toFixed(2)} dB`,
    );
  });
});
