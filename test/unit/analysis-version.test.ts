// The analysis's version (lib/analysis ANALYSIS_VERSION) pins what it answers: a stored analysis of this version is
// served again as it was made (POST /analyze of an upload, api/services/upload-library.ts), so an analysis that
// answers differently must carry another version. Digests of this version's answers on fixtures, recorded here.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ANALYSIS_MAX_SIDE, ANALYSIS_VERSION, analyzePixels } from '../../lib/analysis';
import { decodeRaster } from '../../lib/images';
import * as F from '../helpers/fixtures';

const RECORDED: Record<number, Record<string, string>> = {
  1: {
    'crispLogo 50': 'f5990884a61abcb1',
    'threeColorLogo 500': '06824af483aad7bd',
    'gradientPhoto 24': 'e0f4146bb14bca1c',
    'softShadowLogo 100': 'ca2cd310d547ba40',
  },
};

const cases: [string, () => Promise<Buffer>, number][] = [
  ['crispLogo 50', () => F.crispLogo(600, 750), 50],
  ['threeColorLogo 500', () => F.threeColorLogo(600, 750), 500],
  ['gradientPhoto 24', () => F.gradientPhoto(600, 750), 24],
  ['softShadowLogo 100', () => F.softShadowLogo(600, 750), 100],
];

describe('analysis version', () => {
  it('answers as recorded for its version (bump ANALYSIS_VERSION and record the new digests when it changes)', async () => {
    const got: Record<string, string> = {};
    for (const [name, make, quantity] of cases) {
      const raster = await decodeRaster(await make(), ANALYSIS_MAX_SIDE);
      const answer = (q: number) => JSON.stringify(analyzePixels(raster, q));
      const once = answer(quantity);
      assert.equal(answer(quantity), once, `${name}: the same pixels answer the same`);
      got[name] = createHash('sha256').update(once).digest('hex').slice(0, 16);
    }
    assert.deepEqual(
      got,
      RECORDED[ANALYSIS_VERSION],
      `the analysis answers differently: bump ANALYSIS_VERSION and record the new digests (${JSON.stringify(got)})`,
    );
  });
});
