// Patches the `postgres` driver (3.4.9, the latest release) against an upstream bug that crashes the process when a
// connection closes under a write: porsager/postgres#1208 (also #1066, #1154; fixes proposed in #1168, #1176, #1209,
// none released). A small write is deferred with setImmediate; when the socket closes first (a PostgreSQL restart, a
// terminated backend; sql.begin() then writes its own ROLLBACK on the dead connection), the deferred nextWrite()
// dereferences the null socket in a timer callback: an uncaught TypeError that takes the API or worker down. And the
// teardown clears the timer without resetting it, so a reconnected connection could never flush a small write again.
// The patch: nextWrite() on a closed connection drops the buffered bytes and fails the connection's queries with
// CONNECTION_CLOSED (catchable, retried like any lost connection) and leaves it idle (so sql.end() does not wait on a
// query that can never finish), and teardown resets the write buffer and timer.
// Found by the chaos suite (docs/chaos.md); test/integration/db-connection-loss.test.ts holds it.
//
// Run by `npm install` (postinstall) and by scripts/ensure-deps.sh; idempotent. Plain CommonJS so any Node runs it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const MARK = '/* apparel-mockup patch: porsager/postgres#1208 */';
const root = path.join(__dirname, '..', 'node_modules', 'postgres');
const files = ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js'].map((f) => path.join(root, f));

const edits = [
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    `  function nextWrite(fn) {\n    ${MARK}\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options, socket))\n      query = null\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  ],
  [
    '    clearImmediate(nextWriteTimer)\n    if (socket) {',
    '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {',
  ],
  [
    "    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)",
    "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    socket.removeListener('data', data)",
  ],
];

let patched = 0;
for (const file of files) {
  if (!fs.existsSync(file)) continue;
  const text = fs.readFileSync(file, 'utf8');
  if (text.includes(MARK)) continue;
  let out = text;
  for (const [from, to] of edits) {
    if (!out.includes(from)) {
      process.stderr.write(
        `patch-postgres: ${path.relative(root, file)} does not have the expected code (a newer postgres?); not patched\n`,
      );
      out = null;
      break;
    }
    out = out.replace(from, to);
  }
  if (out) {
    fs.writeFileSync(file, out);
    patched++;
  }
}
if (patched > 0) process.stderr.write(`patch-postgres: patched ${patched} file(s) of the postgres driver\n`);
