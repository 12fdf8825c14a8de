// The blanks are pinned: the drawing of every silhouette and view (each coordinate), its print zones, and for every
// silhouette and view one catalogue colour rendered in full (JPEG, thumbnail, fabric maps) must hash to what
// test/fixtures/blank-hashes.json recorded. `node --import tsx scripts/blank-hashes.ts` compares every catalogue
// blank; an intended change of the look is recorded there with --write and a new RENDER_VERSION.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RENDER_VERSION, SILHOUETTES, VIEWS, clearBlankCache } from '../../lib/blanks';
import {
  BLANK_HASHES_FILE,
  blankHash,
  blankKey,
  catalogueBlanks,
  geometryHash,
  zonesHash,
  type BlankHashes,
} from '../../scripts/blank-hashes';

const recorded = JSON.parse(readFileSync(BLANK_HASHES_FILE, 'utf8')) as BlankHashes;

describe('blank fingerprints (test/fixtures/blank-hashes.json)', function () {
  this.timeout(120_000); // a full-size template of each view is built (seconds each on a busy 2-core machine)
  after(() => clearBlankCache());

  it('are recorded for this renderer version and every catalogue blank', () => {
    assert.equal(recorded.renderVersion, RENDER_VERSION);
    const keys = catalogueBlanks().flatMap((b) => VIEWS.map((v) => blankKey(b.silhouette, b.hex, v)));
    assert.deepEqual(Object.keys(recorded.blanks).sort(), keys.sort());
  });

  it('the drawing of every silhouette and view and its print zones are unchanged', () => {
    for (const s of SILHOUETTES) {
      assert.equal(zonesHash(s), recorded.zones[s], `${s} zones`);
      for (const v of VIEWS) assert.equal(geometryHash(s, v), recorded.geometry[`${s}:${v}`], `${s} ${v} drawing`);
    }
  });

  for (const s of SILHOUETTES) {
    it(`${s}: one colour of each view renders to the recorded bytes (image, thumbnail, fabric maps)`, async () => {
      const hex = catalogueBlanks().find((b) => b.silhouette === s)!.hex;
      for (const v of VIEWS) {
        const key = blankKey(s, hex, v);
        assert.deepEqual(await blankHash(s, hex, v), recorded.blanks[key], key);
      }
    });
  }
});
