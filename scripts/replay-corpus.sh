#!/usr/bin/env bash
# `npm run corpus`: writes the replay corpus (src/cli/replay-corpus.ts) from a stack of its own. Starts
# scripts/stack.sh on spare ports and on data of its own (.data/corpus: Postgres, Temporal, messages, logs;
# fresh each time), so a developer's `npm start` keeps running, with the eSIM store on and the development
# payload key (the corpus is committed: never a real key), runs the generator, stops the stack.
# Extra arguments go to the generator (e.g. --release 0.2.0).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT_DIR"

export STACK_DATA_DIR="$ROOT_DIR/.data/corpus"
rm -rf "$STACK_DATA_DIR"
mkdir -p "$STACK_DATA_DIR"
export PORT="${CORPUS_PORT:-3400}" STACK_WORKER=external TEMPORAL_PORT="${CORPUS_TEMPORAL_PORT:-7433}" TEMPORAL_UI_PORT="${CORPUS_TEMPORAL_UI_PORT:-8433}"
export EMBEDDED_PG_PORT="${CORPUS_PG_PORT:-54339}" MESSAGES_FILE="$STACK_DATA_DIR/messages.jsonl"
# The walks make hundreds of requests from one address: the per-IP limit would stop them.
export WORKER_HEALTH_PORT="${CORPUS_WORKER_HEALTH_PORT:-3401}" FEATURE_ESIM_STORE=true METRICS_ENABLED=false RATE_LIMIT_MAX=100000
export TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
# The mock store sends its signed callbacks there (default localhost:3000, another stack's port).
export PUBLIC_BASE_URL="http://127.0.0.1:$PORT"
unset TEMPORAL_PAYLOAD_KEYS DATABASE_URL

setsid bash scripts/stack.sh > "$STACK_DATA_DIR/stack.log" 2>&1 &
stack=$!
# The stack's own trap stops its processes; its process group goes too if it was still starting.
trap 'kill -TERM -- -$stack 2>/dev/null || true; wait $stack 2>/dev/null || true' EXIT
for ((n = 0; n < 600; n++)); do
  curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null 2>&1 && break
  kill -0 "$stack" 2> /dev/null || { log "the stack stopped; see .data/corpus/stack.log"; exit 1; }
  sleep 0.5
done

# The worker, restarted whenever it exits: one walk kills it mid-handoff (CORPUS_WORKER_PID_FILE names it).
export DATABASE_URL="$(grep '^DATABASE_URL=' "$STACK_DATA_DIR/logs/database.out" | tail -1 | cut -d= -f2-)"
export CORPUS_WORKER_PID_FILE="$STACK_DATA_DIR/worker.pid"
(while :; do
  MOCK_OPERATOR_DELAY_MS=3000 node dist/worker/main.js >> "$STACK_DATA_DIR/logs/worker.log" 2>&1 &
  echo $! > "$CORPUS_WORKER_PID_FILE"
  wait $! || true
done) &
supervisor=$!
trap 'kill $supervisor 2>/dev/null; kill "$(cat "$CORPUS_WORKER_PID_FILE" 2>/dev/null)" 2>/dev/null; kill -TERM -- -$stack 2>/dev/null || true; wait $stack 2>/dev/null || true' EXIT
for ((n = 0; n < 240; n++)); do
  curl -sf "http://127.0.0.1:$WORKER_HEALTH_PORT/healthz" > /dev/null 2>&1 && break
  sleep 0.5
done
node dist/src/cli/replay-corpus.js --url "http://127.0.0.1:$PORT" --messages "$MESSAGES_FILE" "$@"
