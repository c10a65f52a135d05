#!/usr/bin/env bash
# The packages' tests (types, receiver, sender) and the tarball consumer test, again on Node 24 (the
# active LTS), after `pnpm test` ran everything on the machine's Node. Node 24 with its headers comes
# from the npm registry as the `node` package; better-sqlite3 is built for it against those headers
# (npm_config_nodedir) and swapped in only while these tests run: the machine's own build is put back
# on exit, whatever happens. PLANT_SKIP_NODE24=1 skips this part.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PLANT_SKIP_NODE24:-}" = "1" ]; then
  echo "node24: skipped (PLANT_SKIP_NODE24=1)"
  exit 0
fi

version="$(node -p 'require("./package.json").config.node24')"
# Outside the clone, so a fresh clone on the same machine (CI) reuses Node 24 and its better-sqlite3.
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
export PATH="$node24_home/bin:$PATH"
export npm_config_nodedir="$node24_home"
echo "node24: $(node --version) from $node24_home"

# better-sqlite3 is native: one build per Node ABI. Node 24's is built once (cached) in a copy of the
# package, never in the workspace's own folder, whose files pnpm may hard-link from its store: the
# swap below replaces the file (rm, then copy) instead of writing through such a link.
sqlite_dir="$(cd packages/receiver && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
sqlite_version="$(node -p "require('$sqlite_dir/package.json').version")"
binary="$sqlite_dir/build/Release/better_sqlite3.node"
saved="$(mktemp "${TMPDIR:-/tmp}/better_sqlite3-machine-XXXXXX")"
built24="$cache/better_sqlite3-$sqlite_version-node$version.node"
if [ ! -f "$built24" ]; then
  echo "node24: building better-sqlite3 $sqlite_version for Node $version (once)"
  src="$cache/better-sqlite3-$sqlite_version-src"
  rm -rf "$src"
  mkdir -p "$src"
  (cd "$sqlite_dir" && cp -R binding.gyp package.json deps src "$src/")
  if ! (cd "$src" && npm run build-release --loglevel=error >"$cache/build.log" 2>&1); then
    cat "$cache/build.log"
    exit 1
  fi
  cp "$src/build/Release/better_sqlite3.node" "$built24"
  rm -rf "$src"
fi
cp "$binary" "$saved"
swap_in() {
  rm -f "$binary"
  cp "$1" "$binary"
}
trap 'swap_in "$saved"; rm -f "$saved"' EXIT
swap_in "$built24"

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
