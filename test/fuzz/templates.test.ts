// Fuzz suite for PSD templates: mutated mockups (bytes flipped, lengths and sizes overwritten with extreme values,
// cut short) go through the limits (lib/templates/limits.ts) and, when they pass, the engine's parser: every outcome
// is an accepted file or a BadInputError (TemplateLimitError included), never another exception, and fast. A share
// of them goes through POST /api/v1/templates: every answer below 500, in the Part A envelope.
// `npm run fuzz` runs FUZZ_RUNS cases (CI: 100); the seed is printed when one fails.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isBadInput } from '../../lib/errors';
import { parseTemplate } from '../../lib/templates';
import { checkTemplateFile } from '../../lib/templates/limits';
import { account, http } from '../helpers/http';
import { mockupPsd } from '../helpers/psd';
import { startStack, type Stack } from '../helpers/stack';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 30);

const base = {
  psd: mockupPsd({
    width: 120,
    height: 80,
    quad: [30, 20, 90, 24, 88, 60, 32, 58],
    content: { width: 60, height: 40 },
  }),
};
const EXTREMES = [0, 1, 2, 0x7fff, 0xffff, 30_000, 0x7fffffff, 0x80000000, 0xffffffff];

type Mutation =
  | { kind: 'bytes'; at: number[]; values: number[] }
  | { kind: 'u32'; at: number; value: number }
  | { kind: 'u16'; at: number; value: number }
  | { kind: 'cut'; at: number };

const mutation = (len: number): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('bytes' as const),
      at: fc.array(fc.nat(len - 1), { minLength: 1, maxLength: 8 }),
      values: fc.array(fc.nat(255), { minLength: 8, maxLength: 8 }),
    }),
    fc.record({ kind: fc.constant('u32' as const), at: fc.nat(len - 4), value: fc.constantFrom(...EXTREMES) }),
    // the header's and the first sections' fields are where sizes live: aim there often
    fc.record({
      kind: fc.constant('u32' as const),
      at: fc.nat(Math.min(len - 4, 400)),
      value: fc.constantFrom(...EXTREMES),
    }),
    fc.record({
      kind: fc.constant('u16' as const),
      at: fc.nat(len - 2),
      value: fc.constantFrom(...EXTREMES.map((v) => v & 0xffff)),
    }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat(len) }),
  );

function apply(src: Buffer, ms: Mutation[]): Buffer {
  let b = Buffer.from(src);
  for (const m of ms) {
    if (m.kind === 'bytes') m.at.forEach((at, i) => (b[at % b.length] = m.values[i]!));
    else if (m.kind === 'u32' && m.at + 4 <= b.length) b.writeUInt32BE(m.value >>> 0, m.at);
    else if (m.kind === 'u16' && m.at + 2 <= b.length) b.writeUInt16BE(m.value, m.at);
    else if (m.kind === 'cut') b = b.subarray(0, m.at);
  }
  return b;
}

const mutated = fc.array(mutation(base.psd.length), { minLength: 1, maxLength: 3 }).map((ms) => apply(base.psd, ms));

describe('fuzz: PSD templates, mutated', function () {
  this.timeout(600_000);

  it('the limits and the parser accept or refuse as bad input, nothing else, each quickly and without a memory spike', () => {
    let accepted = 0;
    let parsed = 0;
    fc.assert(
      fc.property(mutated, (bytes) => {
        const start = performance.now();
        try {
          checkTemplateFile(bytes);
          accepted++;
        } catch (err) {
          assert.ok(isBadInput(err), `the limits threw ${String(err)}`);
          return;
        }
        try {
          parseTemplate(bytes);
          parsed++;
        } catch (err) {
          assert.ok(isBadInput(err), `the parser threw ${(err as Error)?.stack ?? String(err)}`);
        }
        assert.ok(performance.now() - start < 5000, 'took more than 5 s');
        assert.ok(process.memoryUsage().rss < 1.5 * 1024 ** 3);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    process.stderr.write(
      `[fuzz] PSD seed ${SEED}: ${RUNS} mutated files, ${accepted} passed the limits, ${parsed} parsed\n`,
    );
  });

  describe('through POST /api/v1/templates', () => {
    let stack: Stack;
    let key: string;
    before(async () => {
      stack = await startStack('fuzz-templates', { env: { TEMPLATE_SYNC_TIMEOUT_MS: '0' } });
      ({ key } = await account(stack.baseUrl));
    });
    after(async () => stack?.stop());

    it('answers every mutated file below 500, in the Part A envelope', async () => {
      await fc.assert(
        fc.asyncProperty(mutated, async (bytes) => {
          const form = new FormData();
          form.append('file', new Blob([new Uint8Array(bytes)]), 'fuzz.psd');
          const res = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key, body: form });
          assert.ok(res.status < 500, `${res.status} ${res.text}`);
          if (res.status >= 400) {
            assert.equal(typeof res.body.error?.code, 'string', res.text);
            assert.equal(typeof res.body.error?.message, 'string', res.text);
          } else {
            assert.equal(res.status, 202, res.text);
            await http(stack.baseUrl, 'DELETE', `/api/v1/templates/${res.body.id}`, { key });
          }
        }),
        { numRuns: Math.max(10, Math.round(RUNS / 10)), seed: SEED },
      );
    });
  });
});
