// Patches the `postgres` driver (3.4.9, the latest release) against two upstream bugs of a connection lost mid-query
// (a PostgreSQL restart, a terminated backend). Found by the chaos suite and a flaky test (docs/chaos.md);
// test/integration/db-connection-loss.test.ts holds both.
//
// 1. porsager/postgres#1208 (also #1066, #1154; fixes proposed in #1168, #1176, #1209, none released): a crash from a
//    deferred write. A small write is deferred with setImmediate; when the socket closes first (sql.begin() writes
//    its own ROLLBACK on the dead connection), the deferred nextWrite() dereferences the null socket in a timer
//    callback: an uncaught TypeError that takes the API or worker down. And the teardown clears the timer without
//    resetting it, so a reconnected connection could never flush a small write again. The patch: nextWrite() on a
//    closed connection drops the buffered bytes and fails the connection's queries with CONNECTION_CLOSED
//    (catchable, retried like any lost connection) and leaves it idle (so sql.end() does not wait on a query that
//    can never finish), and teardown resets the write buffer and timer.
// 2. A stale error replayed after a reconnect (noted upstream in #1215, and #1223 for the start-up case, unfixed): a
//    terminated backend first sends its FATAL 57P01, which the driver keeps for the query's ReadyForQuery, and then
//    closes. closed() fails the query with CONNECTION_CLOSED but keeps that error (and the query, and a partial
//    result), so when the same connection object next connects, the new server's first ReadyForQuery fails the
//    query that made it reconnect with the old 57P01. The patch: closed() clears that per-backend state once the
//    in-flight queries are failed.
//
// Run by `npm install` (postinstall) and by scripts/ensure-deps.sh; idempotent (each fix has its own marker, so a
// driver patched by an earlier version of this script gets the newer fixes). Plain CommonJS so any Node runs it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'node_modules', 'postgres');
const files = ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js'].map((f) => path.join(root, f));

const MARK = '/* apparel-mockup patch: porsager/postgres#1208 */';
const STALE_MARK = '/* apparel-mockup patch: stale error after reconnect */';
const closing = "!hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))";
const fixes = [
  {
    mark: MARK,
    edits: [
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
    ],
  },
  {
    mark: STALE_MARK,
    edits: [
      [
        `    ${closing}\n    closedTime = performance.now()`,
        `    ${closing}\n    ${STALE_MARK}\n    query = errorResponse = results = null\n    result = new Result()\n    rows = 0\n    closedTime = performance.now()`,
      ],
    ],
  },
];

let patched = 0;
for (const file of files) {
  if (!fs.existsSync(file)) continue;
  const text = fs.readFileSync(file, 'utf8');
  let out = text;
  for (const { mark, edits } of fixes) {
    if (out.includes(mark)) continue;
    let next = out;
    for (const [from, to] of edits) {
      if (!next.includes(from)) {
        process.stderr.write(
          `patch-postgres: ${path.relative(root, file)} does not have the expected code (a newer postgres?); ${mark} not applied\n`,
        );
        next = null;
        break;
      }
      next = next.replace(from, to);
    }
    if (next) out = next;
  }
  if (out !== text) {
    fs.writeFileSync(file, out);
    patched++;
  }
}
if (patched > 0) process.stderr.write(`patch-postgres: patched ${patched} file(s) of the postgres driver\n`);
