// A Temporal dev server of a test's own, started as the test run starts its server (scripts/stand-ins/temporal.ts),
// for tests that need one they can break or start with other settings.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, resolveTemporalCli, startTemporalDev } from '../../scripts/dev-services';

export interface OwnTemporal {
  /** the CLI binary it runs */
  cli: string;
  connection: Connection;
  /** closes the connection, stops the server and removes its folder */
  stop(): Promise<void>;
}

/** In memory unless told otherwise; its log in a temporary folder that stop() removes. */
export async function startOwnTemporal(
  name: string,
  opts: Pick<Parameters<typeof startTemporalDev>[0], 'searchAttributes'> = {},
): Promise<OwnTemporal> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const log = () => {};
  const cli = await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, log });
  const server = await startTemporalDev({
    cli,
    port: await freePort(),
    logFile: path.join(dir, 'temporal.log'),
    log,
    ...opts,
  });
  const connection = await Connection.connect({ address: server.address }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  return {
    cli,
    connection,
    async stop() {
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
