// Synchronous POST /generate answers as soon as the generation is recorded finished in PostgreSQL, not when the
// workflow has closed. The worker's render step marks the generation completed (or the failure path marks it
// failed) with pg_notify in the same statement, so the notice arrives when that commit does; the workflow still
// has its own bookkeeping to finish (the workflow task's completion, the callback workflow's start), ~25 ms on the
// 2-core machine that the client no longer waits for. The row is the truth either way: a re-run of the workflow
// after a crash finds it finished and changes nothing.
//
// The workflow's result stays the fallback: if the listening connection is down, a notice is missed or the
// generation finishes some other way, the route still answers when the workflow closes. It is asked for only when
// no notice came within a second (or at once when this process cannot listen), so an ordinary generation costs no
// long poll of its history (api/services/generations.ts, RESULT_FALLBACK_AFTER_MS).
import type { Sql } from '../db/client';
import { listenForFinishedGenerations } from '../db/generations';
import type { Logger } from '../lib/log';

export interface FinishedNotice {
  /** resolves when a notice for the generation arrives (never rejects) */
  finished: Promise<void>;
  /** false when this process could not listen: no notice will come, only the workflow's result */
  listening: boolean;
  /** stop waiting (always call it, the notice came or not) */
  cancel(): void;
}

export class GenerationNotices {
  private readonly waiting = new Map<string, () => void>();
  private listening?: Promise<boolean>;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Starts listening (once, on first use) so that a notice sent after this returns is not missed. */
  async wait(generationId: string): Promise<FinishedNotice> {
    const ok = await this.listen();
    let resolve!: () => void;
    const finished = new Promise<void>((r) => (resolve = r));
    if (ok) this.waiting.set(generationId, resolve);
    return { finished, listening: ok, cancel: () => this.waiting.delete(generationId) };
  }

  private listen(): Promise<boolean> {
    this.listening ??= listenForFinishedGenerations(this.sql, (id) => {
      const wake = this.waiting.get(id);
      if (wake) {
        this.waiting.delete(id);
        wake();
      }
    }).then(
      () => true,
      (err: unknown) => {
        // answers then wait for the workflow's result, as before; try again on a later request
        this.log.warn('cannot listen for generation notices; answering from workflow results', {
          error: String(err),
        });
        this.listening = undefined;
        return false;
      },
    );
    return this.listening;
  }
}
