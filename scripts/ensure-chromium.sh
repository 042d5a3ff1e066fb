#!/usr/bin/env bash
# Makes sure Debian's chromium is installed (the /debug/ui test drives it headless through playwright-core).
# Prints the browser's path. Installs with apt-get only when it is missing; honours CHROMIUM_BIN.
set -euo pipefail
bin="${CHROMIUM_BIN:-/usr/bin/chromium}"
if [ ! -x "$bin" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium >&2
fi
"$bin" --version >&2
echo "$bin"
