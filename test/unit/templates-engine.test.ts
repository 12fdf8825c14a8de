// The templates engine (lib/templates) against Photoshop's own composites: files made in Photoshop render with
// their embedded smart-object content close to the composite Photoshop saved; a design lands inside the smart
// object's quad with the layers above over it; prepared templates survive serialization.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BadInputError } from '../../lib/errors';
import {
  deserializePrepared,
  parseTemplate,
  prepareTemplate,
  psnr,
  renderOwnContent,
  renderTemplate,
  serializePrepared,
  type RawImage,
} from '../../lib/templates';

const FIX = path.join(__dirname, '../fixtures/templates');
const load = (name: string) => readFileSync(path.join(FIX, name));

function solid(w: number, h: number, rgba: [number, number, number, number]): RawImage {
  const data = Buffer.alloc(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width: w, height: h, data };
}

/** Is (x, y) inside the convex quad? */
function inside(q: [number, number][], x: number, y: number, tol: number): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % 4]!;
    const len = Math.hypot(bx - ax, by - ay);
    const c = ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / len;
    if (Math.abs(c) <= tol) continue;
    const s = Math.sign(c);
    if (sign && s !== sign) return false;
    sign = s;
  }
  return true;
}

describe('templates engine', function () {
  this.timeout(120000);

  it("renders a perspective smart object within 35 dB of Photoshop's composite", () => {
    const t = parseTemplate(load('perspective-ag-psd-placed-transform.psd'));
    assert.equal(t.smartObjects.length, 1);
    assert.ok(t.photoshopComposite);
    const p = prepareTemplate(t);
    const v = psnr(renderOwnContent(p), t.photoshopComposite);
    assert.ok(v >= 35, `PSNR ${v.toFixed(2)} dB`);
  });

  it('places a design inside the perspective quad, and the prepared template survives serialization', () => {
    const t = parseTemplate(load('perspective-ag-psd-placed-transform.psd'));
    const so = t.smartObjects[0]!;
    const { meta, buffers } = serializePrepared(prepareTemplate(t));
    const p = deserializePrepared(JSON.parse(JSON.stringify(meta)), buffers);
    const base = renderOwnContent(p);
    const out = renderTemplate(p, [{ smartObjectId: so.id, design: solid(300, 500, [255, 0, 0, 255]) }], {
      displace: 'off',
    });
    let red = 0;
    for (let y = 0; y < out.height; y++)
      for (let x = 0; x < out.width; x++) {
        const i = (y * out.width + x) * 4;
        if (
          out.data[i] === base.data[i] &&
          out.data[i + 1] === base.data[i + 1] &&
          out.data[i + 2] === base.data[i + 2]
        )
          continue;
        // every changed pixel lies inside the smart object's quad (1 px of antialiasing allowed)
        assert.ok(inside(so.quad, x + 0.5, y + 0.5, 1.5), `changed pixel outside the quad at ${x},${y}`);
        if (out.data[i]! > 200 && out.data[i + 1]! < 60) red++;
      }
    // the design fills most of the quad (its aspect differs slightly from the smart object's)
    assert.ok(red > 50000, `red pixels ${red}`);
  });

  it('rejects a file that is not a PSD with a BadInputError', () => {
    assert.throws(() => parseTemplate(Buffer.from('\x89PNG\r\n\x1a\nnot a psd')), BadInputError);
  });
});
