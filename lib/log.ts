// Structured JSON logs, one object per line on stdout, so an operator can grep by requestId or workflowId. A line
// written inside a traced request or activity (lib/tracing.ts) carries its traceId and spanId.
import { trace } from '@opentelemetry/api';
import { redactLogLine } from './trace-redaction';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(
  opts: { level?: Level; base?: Record<string, unknown>; write?: (line: string) => void } = {},
): Logger {
  const min = ORDER[opts.level ?? 'info'];
  const base = opts.base ?? {};
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const rec: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...base };
    const span = trace.getActiveSpan()?.spanContext();
    if (span && trace.isSpanContextValid(span)) {
      rec.traceId = span.traceId;
      rec.spanId = span.spanId;
    }
    if (fields) for (const [k, v] of Object.entries(fields)) rec[k] = v instanceof Error ? serializeError(v) : v;
    // a URL in a message or an error (an outgoing call's, a link's) keeps no token-like parameter
    write(redactLogLine(JSON.stringify(rec)));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level: opts.level, base: { ...base, ...fields }, write }),
  };
}

export function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { message: String(err) };
}
