// The database itself: locks, sessions, and a pool of a test's own.
import type { Sql } from '../../../db/client';
import { sql } from './sql';

/**
 * Holds a user's row lock (SELECT ... FOR UPDATE) in an open transaction until `release` is called; `done` settles
 * when that transaction has ended. `pid` is the backend holding it.
 */
export async function holdUserRowLock(
  userId: string,
): Promise<{ pid: number; release: () => void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: (pid: number) => void;
  const isLocked = new Promise<number>((r) => (locked = r));
  const done = sql()
    .begin(async (tx) => {
      const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await tx`select id from users where id = ${userId} for update`;
      locked(row!.pid);
      await released;
    })
    .then(() => undefined);
  const pid = await Promise.race([
    isLocked,
    done.then(
      () => -1,
      () => -1,
    ),
  ]);
  if (pid === -1) {
    await done;
    throw new Error('the lock transaction ended before it held the lock');
  }
  return { pid, release, done };
}

/** A session waiting on a lock held by backend `pid`: its pid and statement, or undefined when none waits. */
export async function blockedBehind(pid: number): Promise<{ pid: number; query: string } | undefined> {
  const [row] = await sql()<{ pid: number; query: string }[]>`
    select pid, query from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`;
  return row;
}

/** Whether backend `pid` still has a session. */
export async function backendAlive(pid: number): Promise<boolean> {
  return (await sql()`select 1 from pg_stat_activity where pid = ${pid}`).length > 0;
}

/** `select 1` on a given pool (a test's own, e.g. through a proxy): 1 when the database answers. */
export async function selectOne(pool: Sql): Promise<number> {
  const [row] = await pool<{ one: number }[]>`select 1 as one`;
  return row!.one;
}

/** Keeps a connection of a given pool busy for `seconds`. */
export async function sleepOn(pool: Sql, seconds: number): Promise<void> {
  await pool`select pg_sleep(${seconds})`;
}
