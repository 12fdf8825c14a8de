// An OTLP/HTTP trace receiver for tests: accepts POST /v1/traces as JSON (http/json) or protobuf (http/protobuf)
// and keeps the spans it was sent, with the service.name of their resource. The protobuf side decodes the few
// fields it needs from the wire format of opentelemetry-proto's ExportTraceServiceRequest.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** how it came: 'json' or 'protobuf' */
  encoding: 'json' | 'protobuf';
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** every export request's body as received (JSON text, or protobuf bytes as latin1): to look for a leaked value */
  bodies: string[];
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const type = req.headers['content-type'] ?? '';
      bodies.push(body.toString(type.includes('json') ? 'utf8' : 'latin1'));
      try {
        if (type.includes('json')) spans.push(...fromJson(JSON.parse(body.toString('utf8'))));
        else if (type.includes('protobuf')) spans.push(...fromProtobuf(body));
        else return void res.writeHead(415).end();
      } catch {
        return void res.writeHead(400).end();
      }
      res
        .writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : type })
        .end(type.includes('json') ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type JsonAttr = { key: string; value: { stringValue?: string } };
function fromJson(req: {
  resourceSpans?: {
    resource?: { attributes?: JsonAttr[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string }[] }[];
  }[];
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          encoding: 'json',
        });
  }
  return out;
}

/** Protobuf wire format: (field number, wire type) keys; varints; length-delimited bytes. */
function fields(buf: Buffer): { field: number; bytes?: Buffer }[] {
  const out: { field: number; bytes?: Buffer }[] = [];
  let i = 0;
  const varint = () => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const len = Number(varint());
      out.push({ field, bytes: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const sub = (buf: Buffer, field: number) =>
  fields(buf)
    .filter((f) => f.field === field && f.bytes)
    .map((f) => f.bytes!);

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  // ExportTraceServiceRequest.resource_spans = 1; ResourceSpans.resource = 1, .scope_spans = 2
  for (const rs of sub(body, 1)) {
    let service = '';
    for (const resource of sub(rs, 1))
      for (const kv of sub(resource, 1)) {
        // KeyValue.key = 1, .value = 2 (AnyValue.string_value = 1)
        const key = sub(kv, 1)[0]?.toString('utf8');
        if (key === 'service.name') service = sub(sub(kv, 2)[0] ?? Buffer.alloc(0), 1)[0]?.toString('utf8') ?? '';
      }
    // ScopeSpans.spans = 2; Span.trace_id = 1, .span_id = 2, .parent_span_id = 4, .name = 5
    for (const ss of sub(rs, 2))
      for (const span of sub(ss, 2))
        out.push({
          service,
          traceId: sub(span, 1)[0]?.toString('hex') ?? '',
          spanId: sub(span, 2)[0]?.toString('hex') ?? '',
          parentSpanId: sub(span, 4)[0]?.toString('hex') ?? '',
          name: sub(span, 5)[0]?.toString('utf8') ?? '',
          encoding: 'protobuf',
        });
  }
  return out;
}
