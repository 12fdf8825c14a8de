// The fault schedule of a chaos run, derived from its seed alone (pure, so `--seed N` repeats it exactly). Process
// faults (a worker or an API SIGKILLed, the Temporal dev server SIGKILLed, PostgreSQL restarted) run one after another
// on one lane; callback-receiver outages run on a second lane and overlap them, so faults also come in combinations.
import type { Rng } from './rng';

export type FaultKind = 'kill-worker' | 'kill-api' | 'restart-temporal' | 'restart-postgres' | 'receiver-down';

export interface Fault {
  kind: FaultKind;
  /** when it starts, in ms after the load started */
  atMs: number;
  /** how long the target stays down (process restarts: before it is started again; receiver: answering 500) */
  downMs: number;
  /** which worker or API (0-based) */
  target?: number;
}

export const PROCESS_FAULTS: FaultKind[] = ['kill-worker', 'kill-api', 'restart-temporal', 'restart-postgres'];

/**
 * Every process fault kind once per round, in a seeded order, at seeded moments spread over the first 75 % of the
 * load (the rest lets the last restart settle while load still runs); one receiver outage per round.
 */
export function planFaults(
  rng: Rng,
  opts: { durationMs: number; rounds: number; apis: number; workers: number },
): Fault[] {
  const faults: Fault[] = [];
  const span = opts.durationMs * 0.7;
  const start = opts.durationMs * 0.08;
  const roundMs = span / opts.rounds;
  for (let r = 0; r < opts.rounds; r++) {
    const kinds = rng.shuffle(PROCESS_FAULTS);
    const slot = roundMs / kinds.length;
    kinds.forEach((kind, i) => {
      const atMs = Math.round(start + r * roundMs + i * slot + rng.next() * slot * 0.4);
      const target =
        kind === 'kill-worker'
          ? rng.int(0, opts.workers - 1)
          : kind === 'kill-api'
            ? rng.int(0, opts.apis - 1)
            : undefined;
      const downMs =
        kind === 'restart-postgres'
          ? rng.int(500, 3000)
          : kind === 'restart-temporal'
            ? rng.int(1000, 4000)
            : rng.int(500, 4000);
      faults.push({ kind, atMs, downMs, ...(target !== undefined ? { target } : {}) });
    });
    faults.push({
      kind: 'receiver-down',
      atMs: Math.round(start + r * roundMs + rng.next() * roundMs * 0.5),
      downMs: rng.int(6000, 15000),
    });
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}
