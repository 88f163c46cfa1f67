#!/usr/bin/env bash
# HTTP benchmark (npm run bench): GET /auth/session with a mobile bearer token next
# to a bare Express route, measured alternately in one run; prints req/s, p50/p99 and
# the throughput ratio against the budget, then GET /activations/history at scale and
# the webhook burst (1,000 signed card-processor deliveries next to GET /healthz, with the
# Temporal dev server and a worker; checks each payment settles exactly once), and
# writes .data/bench/results.json.
# Idempotent: set-up only installs what is missing, the bench uses a throw-away
# embedded PostgreSQL and removes it (and leftovers of interrupted runs) itself.
# Extra arguments go to the bench, e.g. `npm run bench -- --breakdown --rounds 3`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
setup_tools
cd "$ROOT_DIR"
mkdir -p .data/bench
exec node dist/bench/run.js "$@"
