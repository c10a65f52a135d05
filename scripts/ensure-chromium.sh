#!/usr/bin/env bash
# The receiver's live page is tested in a real browser: Debian's chromium driven by playwright-core.
# Installs it on a fresh machine (we run as root there); does nothing when it is already present.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "chromium is missing: install it with 'sudo apt-get install chromium' (or set CHROMIUM_PATH)" >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium >/dev/null
