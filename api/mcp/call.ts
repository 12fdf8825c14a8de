// One MCP tool call or resource read, run as a keyed Part A request is: the key's rate limits for the endpoint it
// stands for (the same chain as the REST route's, api/middleware/rate-limit), then the use case; recorded in the
// request log (via "mcp", route /mcp/tools/<tool> or /mcp/resources/<kind>) and counted in
// mockup_mcp_tool_calls_total{tool, outcome}. Failures come back as the Part A ApiError, never thrown.
import type { Request, RequestHandler, Response } from 'express';
import { Counter, type Registry } from 'prom-client';
import type { AppDeps } from '../context';
import { ApiError, toApiError } from '../errors';
import type { GenerationNotices } from '../generation-notices';
import { rateLimitsFor, type LimitedEndpoint } from '../middleware/rate-limit';
import { requestLogRecorder } from '../middleware/request-log';

/** What every tool and resource of one MCP request sees: the app, the HTTP request it came in (authenticated). */
export interface McpCall {
  deps: AppDeps;
  req: Request;
  res: Response;
  notices: GenerationNotices;
}

/** The caller as the services take it. */
export const callerOf = (c: McpCall) => ({
  userId: c.req.user!.id,
  apiKeyId: c.req.apiKeyId ?? null,
  livemode: c.req.livemode !== false,
});

export const MCP_TOOL_CALLS = 'mockup_mcp_tool_calls_total';

const counters = new WeakMap<Registry, Counter<'tool' | 'outcome'>>();

/** mockup_mcp_tool_calls_total on the app's registry: `outcome` is `ok` or the Part A error code. */
function toolCalls(deps: AppDeps): Counter<'tool' | 'outcome'> | undefined {
  const registry = deps.metrics?.registry;
  if (!registry) return undefined;
  let c = counters.get(registry);
  if (!c) {
    c = new Counter({
      name: MCP_TOOL_CALLS,
      help: 'MCP tool calls (and resource reads, as resource:<kind>) by tool and outcome: ok or the Part A error code',
      labelNames: ['tool', 'outcome'] as const,
      registers: [registry],
    });
    counters.set(registry, c);
  }
  return c;
}

/**
 * Runs Express middleware in order as Express would, each calling the next from its own `next`: the limiters'
 * admission runs the rest of the chain inside its AsyncLocalStorage context (rate-limit/admit.ts), which an await
 * between them would leave.
 */
function runChain(chain: RequestHandler[], req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const step =
      (i: number) =>
      (err?: unknown): void => {
        if (err) return reject(err);
        const handler = chain[i];
        if (!handler) return resolve();
        try {
          const r: unknown = handler(req, res, step(i + 1));
          if (r instanceof Promise) r.catch(reject);
        } catch (e) {
          reject(e);
        }
      };
    step(0)();
  });
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** What is being called: its name in the log and metrics, and the REST endpoint whose budgets it spends. */
export interface Called {
  /** `generate_mockup`, or `resource:garment` */
  name: string;
  /** the request log's route: /mcp/tools/<tool> or /mcp/resources/<kind> */
  route: string;
  endpoint: LimitedEndpoint;
}

export async function gated<T>(c: McpCall, what: Called, run: () => Promise<T>): Promise<Outcome<T>> {
  const started = process.hrtime.bigint();
  const createdAt = new Date();
  let outcome: Outcome<T>;
  try {
    await runChain(rateLimitsFor(c.deps).chain(what.endpoint), c.req, c.res);
    outcome = { ok: true, value: await run() };
  } catch (err) {
    const error = toApiError(err);
    if (error.status >= 500) c.req.log.error('MCP call failed', { err, tool: what.name, status: error.status });
    outcome = { ok: false, error };
  }
  const user = c.req.user!;
  requestLogRecorder(c.deps).add({
    userId: user.id,
    apiKeyId: c.req.apiKeyId ?? null,
    livemode: c.req.livemode !== false,
    method: 'POST',
    route: what.route,
    status: outcome.ok ? 200 : outcome.error.status,
    durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
    requestId: c.req.id,
    errorCode: outcome.ok ? null : outcome.error.code,
    createdAt,
    via: 'mcp',
  });
  toolCalls(c.deps)?.inc({ tool: what.name, outcome: outcome.ok ? 'ok' : outcome.error.code });
  return outcome;
}

/** The Part A error envelope of a refusal. */
export const envelope = (e: ApiError) => ({
  error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
});
