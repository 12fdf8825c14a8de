// deploy/prometheus/alerts.yml is valid for Prometheus (`promtool check rules`, promtool built once into the tool
// cache by scripts/tools/promtool.ts) and each alert has its runbook line in docs/operations.md. That every metric
// a rule or the Grafana dashboard names is exported is checked against live scrapes in observability.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolvePromtool } from '../../scripts/tools/promtool';

const ROOT = path.resolve(__dirname, '../..');
const RULES = path.join(ROOT, 'deploy/prometheus/alerts.yml');

function check(promtool: string, file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(promtool, ['check', 'rules', file], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('alert rules (deploy/prometheus/alerts.yml)', function () {
  // a first run builds promtool with go install (minutes on a loaded machine); later runs find it in the cache
  this.timeout(45 * 60_000);
  let tmp: string;
  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'alerts-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('passes promtool check rules, and promtool refuses a broken copy', async () => {
    const promtool = await resolvePromtool({ log: (m) => process.stderr.write(`[promtool] ${m}\n`) });
    const ok = await check(promtool, RULES);
    assert.equal(ok.code, 0, ok.out);
    const alerts = [...readFileSync(RULES, 'utf8').matchAll(/^\s*- alert: (\w+)/gm)].map((m) => m[1]!);
    assert.match(ok.out, new RegExp(`SUCCESS: ${alerts.length} rules found`));
    const broken = path.join(tmp, 'broken.yml');
    writeFileSync(broken, readFileSync(RULES, 'utf8').replace('> 0.05', '> > 0.05'));
    const bad = await check(promtool, broken);
    assert.notEqual(bad.code, 0, 'a rule with a PromQL syntax error is refused');
  });

  it('covers what hurts users, each alert with a runbook line in docs/operations.md', () => {
    const text = readFileSync(RULES, 'utf8');
    const alerts = [...text.matchAll(/^\s*- alert: (\w+)/gm)].map((m) => m[1]!);
    for (const a of [
      'GenerationErrorRatioHigh',
      'GenerationLatencyOverGoal',
      'WebhookDeliveriesFailing',
      'ProviderFailoverRateHigh',
      'StripeEventsFailed',
      'StripeEventsStuck',
      'WorkerNotPolling',
      'LedgerDebt',
    ])
      assert.ok(alerts.includes(a), `${a} is missing`);
    const ops = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    for (const a of alerts) {
      assert.match(text, new RegExp(`runbook: docs/operations.md#${a.toLowerCase()}\\b`), a);
      assert.match(ops, new RegExp(`^#### ${a}$`, 'm'), `docs/operations.md has no runbook heading for ${a}`);
    }
  });
});
