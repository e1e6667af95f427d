#!/usr/bin/env bash
# Makes sure the Debian tools the tests use are here: clang (the Solana program is rebuilt from C
# and compared with the committed artifact) and chromium (the docs page is rendered headless).
# Installs what is missing when running as root (CI, fresh machines); otherwise says what to run.
set -euo pipefail
missing=()
command -v clang >/dev/null 2>&1 || missing+=(clang)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's ${missing[*]} for the tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need Debian's ${missing[*]}: install with sudo apt-get install -y ${missing[*]}" >&2
exit 1
