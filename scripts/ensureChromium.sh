#!/usr/bin/env bash
# Makes sure Debian's chromium is here: test/openapi.test.ts opens GET /docs in headless Chromium
# and checks the rendered page. Installs it when running as root (CI, fresh machines); otherwise
# says what to run.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium is missing: installing Debian's chromium (the docs page test renders /docs with it)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "chromium is missing: the tests render the docs page with it. Install it with: sudo apt-get install -y chromium" >&2
exit 1
