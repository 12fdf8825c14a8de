// `npm run mcp:inspect -- --method tools/list`: the MCP inspector's CLI (@modelcontextprotocol/inspector-cli, the
// program `@modelcontextprotocol/inspector --cli` runs) against the running service's /mcp (docs/mcp.md), with
// MOCKUP_API_URL (default http://localhost:3000) and MOCKUP_API_KEY. Options after `--` go to the CLI (`--method
// tools/call --tool-name list_garments --tool-arg limit=2`, ...). test/integration/mcp.test.ts runs it the same way.
import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The command line. The CLI finds its own package.json by testing `../package.json` against the working directory
 * but importing it relative to its module, so it runs in its own build folder (where both name the same file).
 */
export function inspectorCommand(baseUrl: string, key: string, extra: string[]) {
  const cli = require.resolve('@modelcontextprotocol/inspector-cli/build/cli.js');
  const url = `${baseUrl.replace(/\/+$/, '')}/mcp`;
  return {
    command: process.execPath,
    args: [cli, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...extra],
    cwd: path.dirname(cli),
  };
}

if (require.main === module) {
  const key = process.env.MOCKUP_API_KEY;
  if (!key) {
    process.stderr.write('mcp:inspect: set MOCKUP_API_KEY to an API key (and MOCKUP_API_URL if not localhost:3000)\n');
    process.exit(2);
  }
  const extra = process.argv.slice(2);
  const c = inspectorCommand(
    process.env.MOCKUP_API_URL ?? 'http://localhost:3000',
    key,
    extra.length ? extra : ['--method', 'tools/list'],
  );
  spawn(c.command, c.args, { cwd: c.cwd, stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 1));
}
