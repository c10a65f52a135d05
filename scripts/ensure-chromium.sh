#!/usr/bin/env bash
# The receiver's live page is tested in a real browser: Debian's chromium driven by playwright-core.
# Installs it on a fresh machine (we run as root there); does nothing when it is already present.
set -euo pipefail
present() { command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; }
if present; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "chromium is missing: install it with 'sudo apt-get install chromium' (or set CHROMIUM_PATH)" >&2
  exit 1
fi
# Both apps' tests run this at once under turbo: the second waits for the first's install (one
# apt at a time; apt-get refuses to start while another holds its lock) and then finds it done.
exec 9>"${TMPDIR:-/tmp}/plant-store-ensure-chromium.lock"
flock 9
if present; then exit 0; fi
echo "Installing Debian's chromium for the browser tests..." >&2
export DEBIAN_FRONTEND=noninteractive
# An install interrupted earlier (a test run stopped mid-way) leaves packages unconfigured, and apt
# then refuses every install until they are: finish it first (nothing to do on a clean machine).
dpkg --configure -a >/dev/null
apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >/dev/null
