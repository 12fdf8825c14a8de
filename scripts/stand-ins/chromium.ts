// Chromium for playwright-core: the dashboard's browser tests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { onPath, type Log } from './process';

/** Debian's chromium package puts its launcher here. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Finds a Chromium for playwright-core (CHROMIUM_PATH, or Debian's /usr/bin/chromium) or installs Debian's package
 * once with apt-get (the machines allow it; it needs root). Idempotent: nothing runs when it is there already.
 */
export function resolveChromium(opts: { log: Log }): string {
  const ok = (bin: string) => spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
  for (const c of [process.env.CHROMIUM_PATH, DEBIAN_CHROMIUM]) if (c && existsSync(c) && ok(c)) return c;
  const apt = onPath('apt-get');
  if (!apt) throw new Error('No Chromium found and no apt-get to install it: set CHROMIUM_PATH to a Chromium binary');
  if (process.getuid?.() !== 0)
    throw new Error(`No Chromium found: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH`);
  opts.log('installing Debian chromium for the browser tests with apt-get (one time)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) =>
    spawnSync(apt, args, { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 }).status === 0;
  // A package list can be stale or missing (a fresh machine): update, then install; quiet unless it fails.
  if (!run(['install', '-y', '-qq', 'chromium'])) {
    if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', 'chromium']))
      throw new Error('apt-get install chromium failed');
  }
  if (existsSync(DEBIAN_CHROMIUM) && ok(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  throw new Error(`apt-get installed chromium but ${DEBIAN_CHROMIUM} does not run`);
}
