// The PSD parser (lib/templates/parse.ts), loaded by the first template parsed, as lib/tracing.ts loads its SDK: it
// loads ag-psd, ~11 MiB per process that renders alone never need (lib/template-import/render.ts imports the
// engine's render modules, not its index). The import activity and a template prepared again both parse through
// this; test/unit/templates-lazy-parser.test.ts checks that nothing else loads it.
import type { ParsedTemplate } from '../templates/parse';

/** lib/templates/parse.ts parseTemplate, its module loaded on the first call. */
export function parseTemplate(file: Buffer): ParsedTemplate {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../templates/parse') as typeof import('../templates/parse')).parseTemplate(file);
}
