#!/usr/bin/env bash
# npm run fuzz: schemathesis (pinned, installed by set-up) against the real app.
#
# Set-up (idempotent), then the fuzz target (test/contract/fuzz-target.ts: the API on 127.0.0.1,
# a throw-away PostgreSQL database, the Temporal dev server and a worker, two end users and a
# super_admin), then `schemathesis run` on its /openapi.json with test/contract/schemathesis.toml.
# Everything it started is stopped when it ends, however it ends.
#
#   npm run fuzz                                   # the committed seed and bounds
#   FUZZ_SEED=123 npm run fuzz                     # another seed (each failure prints the one to reproduce it)
#   npm run fuzz -- --include-path /auth/me        # extra arguments go to `schemathesis run`
#
# Reports: .data/fuzz/{junit.xml,events.ndjson}; logs of the target: .data/fuzz/{api,worker,temporal}.log.
# FUZZ_SKIP_SETUP=1 skips set-up (the Jest test sets it: `npm test` has just run set-up).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
if [ "${FUZZ_SKIP_SETUP:-0}" != 1 ]; then setup_tools; fi
cd "$ROOT_DIR"

FUZZ_DIR="${FUZZ_DIR:-$ROOT_DIR/.data/fuzz}"
export FUZZ_DIR
mkdir -p "$FUZZ_DIR"
rm -f "$FUZZ_DIR"/{junit.xml,events.ndjson,target.out,target.err,api.log,worker.log,temporal.log,messages.jsonl}
if [ ! -x "$SCHEMATHESIS_BIN" ]; then log "schemathesis not found at $SCHEMATHESIS_BIN: run scripts/setup.sh"; exit 1; fi
if [ ! -f dist/test/contract/fuzz-target.js ]; then log "dist/ is missing the fuzz target: run scripts/setup.sh"; exit 1; fi

target_pid="" fuzzer_pid=""
cleanup() {
  trap - INT TERM EXIT
  local pid
  for pid in $fuzzer_pid $target_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

started=$SECONDS
node dist/test/contract/fuzz-target.js > "$FUZZ_DIR/target.out" 2> "$FUZZ_DIR/target.err" &
target_pid=$!
ready=""
for ((n = 0; n < 480; n++)); do
  ready="$(grep -m1 '^FUZZ_TARGET_READY ' "$FUZZ_DIR/target.out" || true)"
  if [ -n "$ready" ]; then break; fi
  if ! kill -0 "$target_pid" 2>/dev/null; then break; fi
  sleep 0.25
done
if [ -z "$ready" ]; then
  log "the fuzz target did not start; its output ($FUZZ_DIR/target.err):"
  tail -n 40 "$FUZZ_DIR/target.err" >&2
  exit 1
fi
ready="${ready#FUZZ_TARGET_READY }"
json_field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$ready" "$1"; }
base_url="$(json_field baseUrl)"
export FUZZ_AUTH_FILE="$(json_field authFile)"
log "fuzz target up in $((SECONDS - started)) s at $base_url; running schemathesis $SCHEMATHESIS_VERSION"

seed_args=()
if [ -n "${FUZZ_SEED:-}" ]; then seed_args=(--seed "$FUZZ_SEED"); fi
# In the background and waited for, so a signal to this script stops everything at once.
"$SCHEMATHESIS_BIN" --config-file "$ROOT_DIR/test/contract/schemathesis.toml" run "$base_url/openapi.json" \
  --url "$base_url" "${seed_args[@]}" --no-color "$@" &
fuzzer_pid=$!
status=0
wait "$fuzzer_pid" || status=$?
fuzzer_pid=""
log "fuzzing took $((SECONDS - started)) s in all (exit $status); reports in $FUZZ_DIR"
exit "$status"
