#!/usr/bin/env bash
# Makes sure Debian's clang is here: the tests rebuild the Solana program from C and compare it
# with the committed artifact. Installs it when running as root (CI, fresh machines); otherwise
# says what to run.
set -euo pipefail
command -v clang >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "clang is missing: installing Debian's clang (the Solana program is built with it)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
  exit 0
fi
echo "clang is missing: the tests rebuild the Solana program with it. Install it with: sudo apt-get install -y clang" >&2
exit 1
