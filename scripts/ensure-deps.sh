#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than package.json / package-lock.json.
# Runs before `npm start`, `npm test` and `npm run bench`, so a fresh clone needs no separate install step.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.install-stamp
# Only what decides the install counts: the lockfile and the dependency lists (editing a script changes nothing).
deps=$(sed -n '/"dependencies": {/,/^  }/p; /"devDependencies": {/,/^  }/p; /"allowScripts": {/,/^  }/p' package.json)
want=$( (printf '%s' "$deps"; cat package-lock.json 2>/dev/null) | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x node_modules/.bin/node ]; then
  # the driver patch (scripts/patch-postgres.cjs) also reaches installs made before it existed; idempotent
  node scripts/patch-postgres.cjs
  exit 0
fi
echo "installing dependencies (npm install)..." >&2
# `npm install` rather than `npm ci`: npm 11 can write a lockfile without other platforms' optional packages,
# which `npm ci` then rejects as out of sync. The lockfile still pins every version installed here.
npm install --no-audit --no-fund --loglevel=error
if ! node_modules/.bin/node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  echo "node_modules/.bin/node is not Node >= 22: the 'node' devDependency did not install" >&2
  exit 1
fi
echo "$want" > "$stamp"
