import assert from 'node:assert/strict';
import {
  complexityOf,
  dtgPrice,
  orderTotals,
  recommend,
  screenPrice,
  SCREEN_MODEL,
  type DesignFacts,
} from '../../lib/analysis';
import { printSize } from '../../lib/analysis/features';
import { warningsFor, type WarningFacts } from '../../lib/analysis/warnings';

describe('price model', () => {
  it('screen: per-unit price never rises with quantity, and falls at every tier', () => {
    for (const colors of [1, 2, 4, 8]) {
      let prev = Infinity;
      for (let q = 1; q <= 10_000; q += q < 100 ? 1 : 37) {
        const p = screenPrice(colors, q).perUnit;
        assert.ok(p <= prev, `${colors} colors: ${p} at ${q} > ${prev}`);
        prev = p;
      }
      const tiers = SCREEN_MODEL.tiers.map((t) => screenPrice(colors, t.from).perUnit);
      for (let i = 1; i < tiers.length; i++) assert.ok(tiers[i]! < tiers[i - 1]!, `tier ${i}: ${tiers.join(' > ')}`);
    }
  });

  it('screen: one setup charge per color (per screen), capped at 8 screens; minimum run 24', () => {
    assert.equal(screenPrice(1, 100).setup, 25);
    assert.equal(screenPrice(3, 100).setup, 75);
    assert.equal(screenPrice(8, 100).setup, 200);
    assert.equal(screenPrice(40, 100).setup, 200);
    assert.equal(screenPrice(0, 100).screens, 1);
    assert.equal(screenPrice(2, 100).minimumQuantity, 24);
    assert.equal(screenPrice(2, 5).perUnit, screenPrice(2, 24).perUnit, 'a short run is charged at the minimum');
    assert.ok(screenPrice(4, 100).perUnit > screenPrice(1, 100).perUnit, 'each extra color costs more per piece');
    assert.equal(screenPrice(1, 24).currency, 'USD');
  });

  it('screen: grounded in published run charges (1 color $3.60 at 24, about $1 at 576+)', () => {
    assert.equal(screenPrice(1, 24).perUnit, 3.6);
    assert.equal(screenPrice(1, 600).perUnit, 1.0);
  });

  it('DTG: priced by printed area, with quantity breaks', () => {
    const full = printSize(2400, 3000);
    const fullArea = full.widthIn * full.heightIn; // 180 sq in
    assert.ok(dtgPrice(fullArea, 1).perUnit > dtgPrice(fullArea * 0.25, 1).perUnit);
    assert.equal(dtgPrice(fullArea, 1).perUnit, 9.76); // $4 + 180 x $0.032
    assert.equal(dtgPrice(0, 1).perUnit, 4);
    assert.ok(
      dtgPrice(100, 500).perUnit < dtgPrice(100, 50).perUnit && dtgPrice(100, 50).perUnit < dtgPrice(100, 1).perUnit,
    );
  });

  it('compares whole orders: screen wins a large run, DTG a small one', () => {
    const screen2 = (q: number) => screenPrice(2, q);
    const dtg = (q: number) => dtgPrice(50, q);
    assert.ok(orderTotals(screen2(24), dtg(24), 24).screen > orderTotals(screen2(24), dtg(24), 24).dtg);
    assert.ok(orderTotals(screen2(500), dtg(500), 500).screen < orderTotals(screen2(500), dtg(500), 500).dtg);
  });
});

describe('technique recommendation', () => {
  const facts = (over: Partial<DesignFacts> = {}): DesignFacts => ({
    colorCount: 2,
    continuousTone: false,
    translucent: false,
    fineDetail: false,
    inkCoverage: 0.3,
    ...over,
  });
  const rec = (f: DesignFacts, q: number, area = 50) =>
    recommend(f, q, screenPrice(f.colorCount, q), dtgPrice(area, q));

  it('photos and gradients go to DTG, as complex', () => {
    const r = rec(facts({ colorCount: 40, continuousTone: true }), 5000);
    assert.deepEqual([r.technique, r.complexity], ['dtg', 'complex']);
    assert.match(r.reason, /gradients or photographic tones/);
    assert.equal(rec(facts({ colorCount: 3, continuousTone: true }), 5000).technique, 'dtg', 'even with few colors');
  });

  it('semi-transparent designs go to DTG', () => {
    assert.equal(rec(facts({ translucent: true }), 1000).technique, 'dtg');
  });

  it('a few flat colors: screen for a large run, vinyl for a tiny one, DTG in between when cheaper', () => {
    const large = rec(facts(), 500);
    assert.deepEqual([large.technique, large.complexity], ['screen', 'simple']);
    assert.match(large.reason, /500 pieces.*\$50\.00 setup for 2 screens/);
    const tiny = rec(facts(), 6);
    assert.equal(tiny.technique, 'vinyl');
    assert.match(tiny.reason, /small run of 6 pieces/);
    const mid = rec(facts(), 24);
    assert.equal(mid.technique, 'dtg');
    assert.match(mid.reason, /screen setup .* makes screen printing dearer than DTG/);
  });

  it('vinyl only for 1-3 colors, bold shapes and designs that are not one big block', () => {
    assert.equal(rec(facts({ colorCount: 4 }), 6).technique, 'dtg');
    assert.match(rec(facts({ colorCount: 4 }), 6).reason, /more than vinyl's 3/);
    assert.equal(rec(facts({ fineDetail: true }), 6).technique, 'dtg');
    assert.equal(rec(facts({ inkCoverage: 1 }), 6).technique, 'dtg');
  });

  it('9-15 flat colors: embroidery for a bold logo, otherwise DTG; more than 15 is DTG', () => {
    const logo = rec(facts({ colorCount: 12, inkCoverage: 0.2 }), 100);
    assert.deepEqual([logo.technique, logo.complexity], ['embroidery', 'complex']);
    assert.equal(rec(facts({ colorCount: 12, inkCoverage: 0.2, fineDetail: true }), 100).technique, 'dtg');
    assert.equal(rec(facts({ colorCount: 12, inkCoverage: 0.9 }), 100).technique, 'dtg');
    assert.equal(rec(facts({ colorCount: 16 }), 100).technique, 'dtg');
  });

  it('never recommends screen printing for more than 8 colors or below the minimum run', () => {
    for (let n = 1; n <= 20; n++)
      for (const q of [1, 10, 23, 24, 100, 10_000]) {
        const r = rec(facts({ colorCount: n }), q);
        if (r.technique === 'screen') assert.ok(n <= 8 && q >= 24, `${n} colors at ${q}`);
        if (r.technique === 'vinyl') assert.ok(n <= 3 && q < 24, `${n} colors at ${q}`);
        if (r.technique === 'embroidery') assert.ok(n <= 15, `${n} colors at ${q}`);
      }
  });

  it('grades complexity by colors, tone and detail', () => {
    assert.equal(complexityOf(facts({ colorCount: 1 })), 'simple');
    assert.equal(complexityOf(facts({ colorCount: 3 })), 'simple');
    assert.equal(complexityOf(facts({ colorCount: 5 })), 'moderate');
    assert.equal(complexityOf(facts({ colorCount: 2, fineDetail: true })), 'moderate');
    assert.equal(complexityOf(facts({ colorCount: 9 })), 'complex');
    assert.equal(complexityOf(facts({ continuousTone: true })), 'complex');
  });
});

describe('warnings', () => {
  const base = (over: Partial<WarningFacts> = {}): WarningFacts => ({
    width: 2400,
    height: 3000,
    print: printSize(2400, 3000),
    colorCount: 2,
    continuousTone: false,
    translucentShare: 0,
    translucent: false,
    fineDetail: false,
    fineShare: 0,
    box: null,
    lowContrast: [],
    visiblePixels: true,
    ...over,
  });

  it('has none for a clean, large, two-color design', () => {
    assert.deepEqual(warningsFor(base()), []);
  });

  it('writes plain sentences for each problem', () => {
    const w = warningsFor(
      base({
        width: 800,
        height: 1000,
        print: printSize(800, 1000),
        colorCount: 20,
        continuousTone: true,
        translucent: true,
        translucentShare: 0.3,
        fineDetail: true,
        fineShare: 0.4,
      }),
    );
    assert.equal(w.length, 5);
    assert.match(
      w[0]!,
      /^Low resolution: at 800x1000 px the design prints at only 67 dpi .* no larger than 4\.0 x 5\.0 in/,
    );
    assert.match(
      w[1]!,
      /^The design has 20 colors, more than vinyl \(up to 3\), screen printing \(up to 8\) and embroidery \(up to 15\)/,
    );
    assert.match(w[2]!, /^Gradients or photographic tones/);
    assert.match(w[3]!, /^About 30% of the design is semi-transparent/);
    assert.match(w[4]!, /^About 40% of the design is detail finer than 1\.5 mm/);
    for (const s of w) assert.match(s, /^[A-Z].*\.$/, 'a sentence');
  });

  it('says when there is nothing to print', () => {
    assert.deepEqual(warningsFor(base({ colorCount: 0, visiblePixels: false })), [
      'The image is fully transparent: nothing would be printed.',
    ]);
  });
});
