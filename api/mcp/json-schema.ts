// Tool schemas for MCP clients: the JSON Schema of a zod schema the REST routes parse with (api/http/schemas.ts),
// as its input (defaults optional) or its output. zod puts schemas named with .meta({id}) in $defs and refers to
// them; MCP wants `type: "object"` at the root and several clients do not follow $ref, so every $ref is inlined.
import { z } from 'zod';

type Json = { [k: string]: unknown };

function inline(node: unknown, defs: Record<string, Json>, depth = 0): unknown {
  if (depth > 32) throw new Error('schema nests too deeply to inline');
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Json;
  const out: Json = {};
  if (typeof $ref === 'string') {
    const name = /^#\/\$defs\/(.+)$/.exec($ref)?.[1];
    const target = name === undefined ? undefined : defs[name];
    if (!target) throw new Error(`cannot inline ${$ref}`);
    Object.assign(out, inline(target, defs, depth + 1));
  }
  for (const [k, v] of Object.entries(rest)) out[k] = inline(v, defs, depth + 1);
  return out;
}

/** The schema as a self-contained JSON Schema object (no $schema, no $defs, no $ref). */
export function toolSchema(schema: z.ZodType, io: 'input' | 'output'): { type: 'object'; [k: string]: unknown } {
  const { $schema: _drop, $defs, ...root } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Json;
  const out = inline(root, ($defs ?? {}) as Record<string, Json>) as Json;
  if (out.type !== 'object') throw new Error('an MCP tool schema must describe an object');
  return out as { type: 'object' };
}
