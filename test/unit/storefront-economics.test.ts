// The storefront's cost rule (lib/storefront/economics.ts): the spec's components for a front-printed item (print
// 30, blank about 15, fulfillment 5, total about 50; retail from 59.99), the garment's basePrice as the blank, and
// money in whole cents.
import assert from 'node:assert/strict';
import { CALIBRATION_AREA_IN2, printCostCents } from '../../lib/print/cost';
import { SUGGESTED_PRICE, toCents, unitEconomics } from '../../lib/storefront/economics';

describe('storefront unit economics', () => {
  it("without a garment: the spec's figures, 50 USD total and 9.99 margin at the suggested 59.99", () => {
    assert.equal(SUGGESTED_PRICE, 59.99);
    assert.deepEqual(unitEconomics({ price: 59.99 }), {
      price: 59.99,
      costs: { print: 30, blank: 15, fulfillment: 5, total: 50 },
      margin: 9.99,
    });
    assert.deepEqual(unitEconomics({ price: 59.99, blankPrice: null }).costs.blank, 15);
  });

  it("uses the garment's basePrice for the blank (a number or the catalogue's numeric text)", () => {
    assert.deepEqual(unitEconomics({ price: 59.99, blankPrice: 4.5 }), {
      price: 59.99,
      costs: { print: 30, blank: 4.5, fulfillment: 5, total: 39.5 },
      margin: 20.49,
    });
    assert.deepEqual(unitEconomics({ price: 59.99, blankPrice: '24.00' }).costs, {
      print: 30,
      blank: 24,
      fulfillment: 5,
      total: 59,
    });
    assert.equal(unitEconomics({ price: 59.99, blankPrice: '24.00' }).margin, 0.99);
    assert.equal(unitEconomics({ price: 20, blankPrice: 0 }).costs.total, 35, 'a free blank is still a blank');
  });

  it('takes the print cost from the print file (lib/print/cost.ts) when there is one; the flat 30 without', () => {
    // the calibration print (the default box of the 12 x 16 in front, full ink, light garment) costs the spec's 30
    assert.equal(printCostCents(CALIBRATION_AREA_IN2), 3000);
    const small = printCostCents(20); // 6 + 20 x 0.1953 = 9.91 USD
    assert.equal(small, 991);
    assert.deepEqual(unitEconomics({ price: 59.99, blankPrice: 4.5, printCents: small }), {
      price: 59.99,
      costs: { print: 9.91, blank: 4.5, fulfillment: 5, total: 19.41 },
      margin: 40.58,
    });
    // an underbase doubles the ink
    assert.equal(unitEconomics({ price: 59.99, printCents: printCostCents(20, true) }).costs.print, 13.81);
    assert.equal(unitEconomics({ price: 59.99, printCents: null }).costs.print, 30);
    assert.throws(() => unitEconomics({ price: 10, printCents: 1.5 }), RangeError);
    assert.throws(() => unitEconomics({ price: 10, printCents: -1 }), RangeError);
  });

  it('is exact in cents: no binary-fraction drift, a price below cost gives a negative margin', () => {
    // 0.1 + 0.2 style sums: 30 + 11.75 + 5 and 64.99 − 46.75 in floating point are not what a person writes
    const e = unitEconomics({ price: 64.99, blankPrice: 11.75 });
    assert.equal(e.costs.total, 46.75);
    assert.equal(e.margin, 18.24);
    assert.equal(unitEconomics({ price: 0.3, blankPrice: 0.1 }).margin, -34.8);
    assert.equal(unitEconomics({ price: 45.1, blankPrice: 15.5 }).margin, -5.4);
    for (let cents = 1; cents < 20_000; cents += 7) {
      const m = unitEconomics({ price: cents / 100, blankPrice: 6.25 }).margin;
      assert.equal(Math.round(m * 100), cents - 4125, `${cents}`);
      assert.equal(m, (cents - 4125) / 100);
    }
  });

  it('rounds inputs to the cent, half away from zero', () => {
    assert.equal(toCents(1.005), 101);
    assert.equal(toCents(59.994), 5999);
    assert.equal(toCents(59.995), 6000);
    assert.equal(toCents(-1.005), -101);
    assert.equal(unitEconomics({ price: 59.999, blankPrice: 4.499 }).price, 60);
    assert.equal(unitEconomics({ price: 59.999, blankPrice: 4.499 }).costs.blank, 4.5);
  });

  it('refuses what is not an amount', () => {
    assert.throws(() => unitEconomics({ price: Number.NaN }), RangeError);
    assert.throws(() => unitEconomics({ price: 10, blankPrice: 'abc' }), RangeError);
    assert.throws(() => unitEconomics({ price: 10, blankPrice: -1 }), RangeError);
  });
});
