// Contrast of a design's inks on garment colours (lib/analysis/contrast.ts) and the low_contrast warning built from it.
import assert from 'node:assert/strict';
import { contrastOn, contrastRatio, CONTRAST, darkColor, relativeLuminance } from '../../lib/analysis/contrast';
import { lowContrastWarning } from '../../lib/generation/contrast-warning';

describe('contrast of inks on garment colours', () => {
  it('computes WCAG 2 contrast ratios (reference values)', () => {
    assert.equal(Math.round(contrastRatio('#000000', '#FFFFFF') * 100) / 100, 21);
    assert.equal(contrastRatio('#777777', '#777777'), 1);
    // WebAIM's checker: #767676 on white is 4.54:1
    assert.equal(Math.round(contrastRatio('#767676', '#FFFFFF') * 100) / 100, 4.54);
    assert.equal(relativeLuminance('#FFFFFF'), 1);
  });

  it('flags navy on black and not on white', () => {
    const navy = [{ hex: '#1F2A44', share: 1 }];
    assert.equal(contrastOn(navy, '#1C1C1E').low, true);
    assert.equal(contrastOn(navy, '#F7F7F5').low, false);
    // pure navy: CIEDE2000 calls it clearly different from black (28), its luminance step is nil
    assert.ok(contrastRatio('#000080', '#231F20') < 1.1);
  });

  it('needs a significant share of the ink to be low, renormalised without a background box', () => {
    const inks = [
      { hex: '#FFFFFF', share: 0.85 },
      { hex: '#111111', share: 0.15 },
    ];
    assert.equal(contrastOn(inks, '#000000').low, false, '15 % is below the share');
    const r = contrastOn(inks, '#000000', { exclude: '#ffffff' });
    assert.equal(r.low, true);
    assert.equal(r.lowShare, 1);
    assert.equal(contrastOn([{ hex: '#111111', share: 1 }], '#000000', { touchesFabric: false }).low, false);
    assert.ok(CONTRAST.minShare > 0.15 && CONTRAST.minShare <= 0.25);
  });

  it('calls colours dark below L* 50', () => {
    assert.equal(darkColor('#1C1C1E'), true);
    assert.equal(darkColor('#B3262E'), true, 'red, L* 39');
    assert.equal(darkColor('#A3A7AB'), false, 'sport grey');
    assert.equal(darkColor('#F7F7F5'), false);
  });

  it('builds the low_contrast warning with its measurements', () => {
    const design = { inks: [{ hex: '#1F2A44', share: 1 }], touchesFabric: true, boxHex: null };
    const w = lowContrastWarning(design, { name: 'Black', hex: '#1C1C1E' });
    assert.equal(w?.code, 'low_contrast');
    assert.match(w!.message, /100 % of the design's ink is hard to see on Black #1C1C1E/);
    assert.deepEqual(w!.details!.garmentColor, 'Black');
    assert.equal(w!.details!.lowShare, 1);
    assert.equal(lowContrastWarning(design, { name: 'White', hex: '#F7F7F5' }), null);
  });
});
