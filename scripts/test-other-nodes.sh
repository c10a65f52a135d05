#!/usr/bin/env bash
# The packages' tests (types, receiver, sender) and the tarball consumer test, again on Node 24 (the
# active LTS) and Node 22 (maintenance LTS), side by side, after `pnpm test` ran everything on the
# machine's Node. Each Node comes from the npm registry as the `node` package (versions: package.json
# `config.otherNodes`). PLANT_SKIP_OTHER_NODES=1 skips this part.
#
# CI runs both (issue 28). With 22 beside 24 this part takes about 160 s since tsc only emits the
# consumer projects here (150-225 s before; clean-clone CI runs: 13-14 min with both, 10 min 18 s with 24 alone), so the turbo part was made shorter first (the sender app's CLI tests run its main in-process, e2e's two
# install tests side by side). It runs after turbo, never beside e2e's tests: started beside them (a
# copy makes that possible) it slowed them until two of the crash tests' timing failed.
#
# There the SQLite stores run on better-sqlite3 13, the version a Node 24 user needs: 12.x subclasses
# node::ObjectWrap, whose destructor on Node 24 asserts that a Node environment is current, and a
# prepared statement collected by a GC that runs outside one aborts the process (`Assertion failed:
# (env) != nullptr` in RemoveEnvironmentCleanupHook; seen here in 2 of 3 runs of the sender's tests;
# WiseLibs/better-sqlite3#1515). 13 is Node-API, ships its binaries in the package (nothing to build)
# and needs Node >= 22, so the workspace keeps 12 for the machine's Node and 13 takes its place in a
# copy of the workspace, where these tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PLANT_SKIP_OTHER_NODES:-}" = "1" ]; then
  echo "other nodes: skipped (PLANT_SKIP_OTHER_NODES=1)"
  exit 0
fi

read -r -a versions <<<"$(node -p 'require("./package.json").config.otherNodes.join(" ")')"
sqlite13="$(node -p 'require("./package.json").config.otherNodesBetterSqlite3')"
# Outside the clone, so a fresh clone on the same machine (CI) reuses what was fetched.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/plant-store-webhooks/other-nodes"

# The `node` package installs the build for this platform as node_modules/node-<os>-<arch>.
node_home() {
  local home_dir="$cache/node-$1" dir
  for dir in "$home_dir"/node_modules/node/node_modules/node-*; do
    if [ -x "$dir/bin/node" ] && [ -d "$dir/include/node" ]; then
      echo "$dir"
      return 0
    fi
  done
  echo "other nodes: installing node@$1 from the npm registry" >&2
  mkdir -p "$home_dir"
  npm install --prefix "$home_dir" --no-save --no-audit --no-fund --loglevel=error "node@$1" >/dev/null
  for dir in "$home_dir"/node_modules/node/node_modules/node-*; do
    if [ -x "$dir/bin/node" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

sqlite13_home="$cache/better-sqlite3-$sqlite13"
if [ ! -f "$sqlite13_home/node_modules/better-sqlite3/package.json" ]; then
  echo "other nodes: installing better-sqlite3@$sqlite13 from the npm registry"
  mkdir -p "$sqlite13_home"
  npm install --prefix "$sqlite13_home" --no-save --no-audit --no-fund --loglevel=error \
    --ignore-scripts --engine-strict=false "better-sqlite3@$sqlite13" >/dev/null
fi

# They run in a copy of the workspace, which nothing here writes back to, so a run stopped halfway leaves
# the workspace as it was: sources and builds are copied, the node_modules folders hard-linked (their
# files are already pnpm's store's, shared and only read) and only the copy's better-sqlite3 replaced.
logs="$(mktemp -d "${TMPDIR:-/tmp}/plant-store-other-nodes-XXXXXX")"
trap 'rm -rf "$logs"' EXIT
copy="$logs/workspace"
mkdir "$copy"
tar -C . --exclude=./.git --exclude=node_modules --exclude=./.turbo -cf - . | tar -C "$copy" -xf -
while IFS= read -r dir; do
  cp -al "$dir" "$copy/$dir"
done < <(find . -path ./.git -prune -o -name node_modules -type d -prune -print)
# Vitest's caches are written to: the copy gets its own instead of links to the workspace's files.
find "$copy" -path "$copy/node_modules/.pnpm" -prune -o -type d \( -name .vite -o -name .vite-temp \) -prune -print |
  xargs -r rm -rf
sqlite_dir="$(cd "$copy/packages/receiver" && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
case "$sqlite_dir" in
  "$copy"/*) ;;
  *) echo "other nodes: better-sqlite3 resolved outside the copy ($sqlite_dir)" >&2; exit 1 ;;
esac
rm -rf "$sqlite_dir"
cp -R "$sqlite13_home/node_modules/better-sqlite3" "$sqlite_dir"

# The versions run side by side, each into a log printed when all are done.
run_on() {
  local version="$1" home
  home="$(node_home "$version")" || return 1
  export PATH="$home/bin:$PATH"
  export npm_config_nodedir="$home"
  echo "other nodes: $(node --version) from $home, better-sqlite3 $sqlite13"
  local result=0
  cd "$copy"
  # The tarballs installed with npm into a stranger's project and its README examples, beside the
  # packages' tests (each waits on processes and PostgreSQL more than it computes); each into its own
  # log, printed in turn. tsc only emits the consumer projects there: the machine's Node type-checked them.
  PLANT_CONSUMER_EMIT_ONLY=1 pnpm --filter plant-store-e2e exec vitest run test/packaging.test.ts \
    >"$logs/$version.packaging.log" 2>&1 &
  local packaging="$!"
  # --no-bail reports every package's result; --no-sort runs them without waiting on each other.
  pnpm --workspace-concurrency=2 --no-sort --no-bail --filter @plant-store/types --filter @plant-store/receiver \
    --filter @plant-store/sender run test || result=1
  wait "$packaging" || result=1
  cat "$logs/$version.packaging.log"
  if [ "$result" -ne 0 ]; then
    echo "other nodes: FAILED on $(node --version)"
    return 1
  fi
  echo "other nodes: passed on $(node --version)"
}
pids=()
for version in "${versions[@]}"; do
  run_on "$version" >"$logs/$version.log" 2>&1 &
  pids+=("$!")
done
status=0
for i in "${!versions[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$logs/${versions[$i]}.log"
done
exit "$status"
