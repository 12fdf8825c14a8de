// The metric names a PromQL expression reads: what remains once strings, label matchers, grouping clauses, range
// and offset durations, numbers, functions, aggregations and keywords are taken out.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

const NOT_METRICS = new Set([
  // aggregations and keywords
  ...['sum', 'min', 'max', 'avg', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values'],
  ...['group', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset'],
  ...['bool', 'inf', 'nan'],
  // functions
  ...['rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'histogram_quantile', 'absent', 'absent_over_time'],
  ...['abs', 'ceil', 'floor', 'round', 'clamp', 'clamp_min', 'clamp_max', 'label_replace', 'label_join', 'time'],
  ...['avg_over_time', 'max_over_time', 'min_over_time', 'sum_over_time', 'count_over_time', 'vector', 'scalar'],
  ...['sort', 'sort_desc', 'changes', 'resets', 'predict_linear', 'timestamp', 'exp', 'ln', 'log2', 'sqrt'],
]);

export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b\d+(\.\d+)?([eE][+-]?\d+)?\b/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) if (!NOT_METRICS.has(m[0])) names.add(m[0]);
  return [...names];
}

/** Every `expr:` of deploy/prometheus/alerts.yml (block scalars included). */
export function alertExpressions(file = path.join(ROOT, 'deploy/prometheus/alerts.yml')): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[2] !== '|' && m[2] !== '>') {
      out.push(m[2]!);
      continue;
    }
    const body: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || lines[i + 1]!.search(/\S/) > m[1]!.length))
      body.push(lines[++i]!.trim());
    out.push(body.join(' '));
  }
  return out;
}

/** Every target expression of the Grafana dashboard. */
export function dashboardExpressions(file = path.join(ROOT, 'deploy/grafana/apparel-mockups.json')): string[] {
  const dash = JSON.parse(readFileSync(file, 'utf8')) as { panels: { targets?: { expr?: string }[] }[] };
  return dash.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => (t.expr ? [t.expr] : [])));
}
