# Sourced by every script: where the cached tools live and which Node runs the project.
# Tools are cached outside the repository so a fresh clone reuses them.
ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/activation-sys"
NODE_VERSION="24.21.0"
NODE_HOME="$CACHE_DIR/node/v$NODE_VERSION"
TEMPORAL_CLI_VERSION="v1.5.1"
TEMPORAL_CLI="$CACHE_DIR/temporal-cli/$TEMPORAL_CLI_VERSION/temporal"
TEMPORAL_TEST_SERVER_VERSION="1.38.0"
TEMPORAL_TEST_SERVER_DIR="$CACHE_DIR/temporal-test-server/$TEMPORAL_TEST_SERVER_VERSION"
# The schema-driven API fuzzer (npm run fuzz): a Python venv of its own, pinned.
SCHEMATHESIS_VERSION="4.32.5"
SCHEMATHESIS_HOME="$CACHE_DIR/schemathesis/$SCHEMATHESIS_VERSION"
export ROOT_DIR CACHE_DIR TEMPORAL_CLI TEMPORAL_TEST_SERVER_DIR SCHEMATHESIS_VERSION SCHEMATHESIS_HOME
export SCHEMATHESIS_BIN="${SCHEMATHESIS_BIN:-$SCHEMATHESIS_HOME/bin/schemathesis}"
export TEMPORAL_CLI_PATH="${TEMPORAL_CLI_PATH:-$TEMPORAL_CLI}"
export TEMPORAL_TEST_SERVER_PATH="${TEMPORAL_TEST_SERVER_PATH:-$ROOT_DIR/scripts/temporal-test-server.sh}"

# The machine's Node may be older than 24: prefer the cached Node 24 when present.
machine_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
use_cached_node() {
  if [ -x "$NODE_HOME/bin/node" ] && [[ ":$PATH:" != *":$NODE_HOME/bin:"* ]]; then
    export PATH="$NODE_HOME/bin:$PATH"
  fi
}
use_cached_node
# Set-up runs in a process of its own, so the Node 24 it may have just installed reaches the
# caller's PATH only through this: every script that sets up and then runs Node calls it.
setup_tools() {
  bash "$ROOT_DIR/scripts/setup.sh" "$@"
  use_cached_node
}
log() { printf '\033[1m[activation-sys]\033[0m %s\n' "$*" >&2; }
