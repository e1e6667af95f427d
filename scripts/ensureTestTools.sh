#!/usr/bin/env bash
# Makes sure the Debian tools the tests use are here: clang (the Solana program is rebuilt from C
# and compared with the committed artifact), chromium (the docs page is rendered headless) and
# prometheus for its promtool (docs/ops/alerts.yml is checked with `promtool check rules`) and
# softhsm2, a real PKCS#11 token for the relayer keys held in an HSM (test/keys/hsmSigner.test.ts),
# and faketime, with which the fault campaign steps a gateway's clock (bench/chaos/phases/clockPhase.ts).
# Installs what is missing when running as root (CI, fresh machines); otherwise says what to run.
# Then checks the local PostgreSQL and Redis the shared-journal tests use, and starts the machine's
# own servers when they are installed but stopped.
set -euo pipefail
missing=()
command -v clang >/dev/null 2>&1 || missing+=(clang)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v softhsm2-util >/dev/null 2>&1 || missing+=(softhsm2)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's ${missing[*]} for the tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "the tests need Debian's ${missing[*]}: install with sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# PostgreSQL and Redis: only the defaults are looked after (TEST_DATABASE_URL / TEST_REDIS_URL point elsewhere).
if [ -z "${TEST_DATABASE_URL:-}" ] && command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if [ "$(id -u)" = "0" ] && command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "starting the local PostgreSQL for the tests..."
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
fi
if [ -z "${TEST_REDIS_URL:-}" ] && command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v redis-server >/dev/null 2>&1; then
    echo "starting the local Redis for the tests..."
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null || true
  fi
fi
exit 0
