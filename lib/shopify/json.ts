// Shopify's REST-format webhook payloads carry 64-bit ids as bare JSON numbers (its own documented samples use
// 820982911946154508, above 2^53): JSON.parse would round them to the nearest double and turn one order into another.
// This parse keeps every integer that a double cannot hold exactly as its decimal text (a string), using the
// reviver's source text (JSON.parse source text access, on by default since Node 22; engines: node >= 22). Every
// other value parses as JSON.parse would.

interface ReviverContext {
  source?: string;
}

const INTEGER = /^-?\d+$/;

function keepBigIntegers(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  if (source === undefined) throw new Error('JSON.parse source text access is unavailable: Node 22 or later is needed');
  return INTEGER.test(source) ? source : value;
}

/** JSON.parse, but integers beyond Number.MAX_SAFE_INTEGER come back as strings of their exact digits. */
export function parseJsonKeepingBigIntegers(text: string): unknown {
  return JSON.parse(text, keepBigIntegers as (this: unknown, key: string, value: unknown) => unknown);
}
