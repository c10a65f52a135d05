#!/usr/bin/env bash
# The packages' tests (types, receiver, sender) and the tarball consumer test, again on Node 24 (the
# active LTS), after `pnpm test` ran everything on the machine's Node. Node 24 with its headers comes
# from the npm registry as the `node` package.
#
# On Node 24 the SQLite stores run on better-sqlite3 13, the version a Node 24 user needs: 12.x
# subclasses node::ObjectWrap, whose destructor on Node 24 asserts that a Node environment is
# current, and a prepared statement collected by a GC that runs outside one aborts the process
# (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook; seen here in 2 of 3 runs
# of the sender's tests; WiseLibs/better-sqlite3#1515). 13 is Node-API, ships its binaries in the
# package (nothing to build) and needs Node >= 22, so the workspace keeps 12 for the machine's Node
# and 13 takes its folder only while these tests run: the workspace's own is put back on exit,
# whatever happens. PLANT_SKIP_NODE24=1 skips this part.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PLANT_SKIP_NODE24:-}" = "1" ]; then
  echo "node24: skipped (PLANT_SKIP_NODE24=1)"
  exit 0
fi

version="$(node -p 'require("./package.json").config.node24')"
sqlite13="$(node -p 'require("./package.json").config.node24BetterSqlite3')"
# Outside the clone, so a fresh clone on the same machine (CI) reuses Node 24 and better-sqlite3 13.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/plant-store-webhooks/node24"
home_dir="$cache/node-$version"
# The `node` package installs the build for this platform as node_modules/node-<os>-<arch>.
find_node24() {
  local dir
  for dir in "$home_dir"/node_modules/node/node_modules/node-*; do
    if [ -x "$dir/bin/node" ] && [ -d "$dir/include/node" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}
if ! node24_home="$(find_node24)"; then
  echo "node24: installing node@$version from the npm registry"
  mkdir -p "$home_dir"
  npm install --prefix "$home_dir" --no-save --no-audit --no-fund --loglevel=error "node@$version" >/dev/null
  node24_home="$(find_node24)"
fi
sqlite13_home="$cache/better-sqlite3-$sqlite13"
if [ ! -f "$sqlite13_home/node_modules/better-sqlite3/package.json" ]; then
  echo "node24: installing better-sqlite3@$sqlite13 from the npm registry"
  mkdir -p "$sqlite13_home"
  npm install --prefix "$sqlite13_home" --no-save --no-audit --no-fund --loglevel=error \
    --ignore-scripts --engine-strict=false "better-sqlite3@$sqlite13" >/dev/null
fi

# The folder the packages resolve better-sqlite3 to (pnpm's, one version for the whole workspace) is
# moved aside, never written through: its files may be hard links into pnpm's store.
sqlite_dir="$(cd packages/receiver && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
saved="$sqlite_dir.machine"
# A run stopped before its trap ran left the workspace's own aside: put it back first.
if [ -d "$saved" ]; then
  rm -rf "$sqlite_dir"
  mv "$saved" "$sqlite_dir"
fi
mv "$sqlite_dir" "$saved"
trap 'rm -rf "$sqlite_dir"; mv "$saved" "$sqlite_dir"' EXIT
cp -R "$sqlite13_home/node_modules/better-sqlite3" "$sqlite_dir"

export PATH="$node24_home/bin:$PATH"
export npm_config_nodedir="$node24_home"
echo "node24: $(node --version) from $node24_home, better-sqlite3 $(node -p "require('$sqlite_dir/package.json').version")"

# Sequential (the machine's two cores are shared); --no-bail reports every package's result.
status=0
pnpm --workspace-concurrency=1 --no-bail --filter @plant-store/types --filter @plant-store/receiver \
  --filter @plant-store/sender run test || status=1
# The tarballs installed with npm into a stranger's project and its README examples, run on Node 24.
pnpm --filter plant-store-e2e exec vitest run test/packaging.test.ts || status=1
if [ "$status" -ne 0 ]; then
  echo "node24: FAILED on $(node --version)"
  exit 1
fi
echo "node24: passed on $(node --version)"
