#!/usr/bin/env bash
# Builds what an app needs (turbo's cache makes this instant when nothing changed), quietly unless the
# build fails, then runs the app with the caller's arguments.
set -euo pipefail
filter=$1
entry=$2
shift 2
log=$(mktemp)
if ! pnpm exec turbo run build --filter="$filter..." --output-logs=errors-only >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
exec node "$entry" "$@"
