#!/usr/bin/env bash
# One command for the whole local stack: set-up of what the stack needs (idempotent: Node, the npm
# packages, the build, the Temporal CLI; the test-only tools are npm test's), then PostgreSQL (embedded
# unless DATABASE_URL is set; migrated and seeded), the Temporal dev server with its UI, the API and the
# worker. Ctrl-C stops everything.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
setup_tools stack
cd "$ROOT_DIR"

PORT="${PORT:-3000}"
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
export PORT TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
# STACK_DATA_DIR (default .data): its Postgres, Temporal's SQLite file, the messages file and the logs, so a
# second stack (`npm run corpus`) runs beside a developer's on data of its own.
DATA_DIR="${STACK_DATA_DIR:-$ROOT_DIR/.data}"
if [ -n "${STACK_DATA_DIR:-}" ]; then
  export EMBEDDED_PG_DIR="${EMBEDDED_PG_DIR:-$DATA_DIR/pg}" MESSAGES_FILE="${MESSAGES_FILE:-$DATA_DIR/messages.jsonl}"
fi
LOG_DIR="$DATA_DIR/logs"
mkdir -p "$LOG_DIR"

pids=()
cleanup() {
  trap - INT TERM EXIT
  log "stopping the stack"
  for ((i=${#pids[@]}-1; i>=0; i--)); do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

wait_for() { # name, check command, seconds
  local name="$1" check="$2" limit="${3:-60}"
  for ((n=0; n<limit*4; n++)); do
    if eval "$check" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  log "$name did not become ready; see $LOG_DIR"; exit 1
}

# 1. PostgreSQL: migrated and seeded; the helper keeps the embedded server alive.
DB_FIFO="$LOG_DIR/database.out"; : > "$DB_FIFO"
node dist/src/cli/prepare-database.js > "$DB_FIFO" 2> "$LOG_DIR/database.log" &
pids+=($!)
wait_for "PostgreSQL" "grep -q '^DATABASE_URL=' '$DB_FIFO'" 120
export DATABASE_URL="$(grep '^DATABASE_URL=' "$DB_FIFO" | tail -1 | cut -d= -f2-)"

# 2. Temporal dev server, persisted in SQLite, with the UI. Payloads are encrypted (src/temporal/codec.ts):
# the UI decodes them through the API's codec endpoint, for a super_admin signed in to the API in the same
# browser. The CLI cannot tell the UI to send cookies: the operator turns on "Include cross-origin
# credentials" in the UI's Codec Server settings once (docs/runbook.md, Reading encrypted payloads).
"$TEMPORAL_CLI" server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
  --ui-codec-endpoint "http://127.0.0.1:$PORT/temporal-codec" \
  --db-filename "$DATA_DIR/temporal.db" --log-level warn \
  --dynamic-config-value frontend.enableServerVersionCheck=false \
  --dynamic-config-value frontend.enableExecuteMultiOperation=true \
  --dynamic-config-value system.enableActivityEagerExecution=true \
  > "$LOG_DIR/temporal.log" 2>&1 &
pids+=($!)
wait_for "Temporal" "(exec 3<>/dev/tcp/127.0.0.1/$TEMPORAL_PORT)" 60
# Business keys as search attributes, so runs are findable in the UI: every one the code uses
# (src/temporal/search-attributes.ts), registered by the same one-shot as compose's temporal-init
# (start-dev's --search-attribute is ignored when the SQLite file already exists).
node dist/src/cli/temporal-init.js >> "$LOG_DIR/temporal.log" 2>&1 || { log "registering the search attributes failed; see $LOG_DIR/temporal.log"; exit 1; }

# 3. Worker (workflows, activities, the relay that hands webhook inbox rows to the settlement
# workflows, and the start relay that starts the runs the API could not start at once) and API.
# STACK_WORKER=external: the caller runs the worker (`npm run corpus` kills and restarts its own).
WORKER_HEALTH_PORT="${WORKER_HEALTH_PORT:-3001}"
if [ "${STACK_WORKER:-}" != external ]; then
  WORKER_HEALTH_PORT="$WORKER_HEALTH_PORT" node dist/worker/main.js > "$LOG_DIR/worker.log" 2>&1 &
  pids+=($!)
fi
node dist/src/main.js > "$LOG_DIR/api.log" 2>&1 &
pids+=($!)
wait_for "API" "curl -sf http://127.0.0.1:$PORT/healthz" 60

cat <<INFO

  activation-sys is running
    API          http://127.0.0.1:$PORT        (docs: http://127.0.0.1:$PORT/docs, readiness: /readyz)
    Worker       http://127.0.0.1:$WORKER_HEALTH_PORT/healthz
    Temporal UI  http://127.0.0.1:$TEMPORAL_UI_PORT  (payloads decode through http://127.0.0.1:$PORT/temporal-codec)
    Temporal     127.0.0.1:$TEMPORAL_PORT (namespace default, task queue activation-sys)
    PostgreSQL   ${DATABASE_URL%%@*}@${DATABASE_URL#*@}
    OTPs & links ${MESSAGES_FILE:-$ROOT_DIR/.data/messages.jsonl}
    Logs         $LOG_DIR/{api,worker,temporal,database}.log
  Ctrl-C stops everything.

INFO
# Exit (and stop the rest) as soon as any part dies.
wait -n "${pids[@]}"
log "a stack process exited; see $LOG_DIR"
