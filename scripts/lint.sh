#!/usr/bin/env bash
# ESLint with typescript-eslint's type-checked rules (eslint.config.mjs), Prettier's check, then no
# import cycles (scripts/import-cycles.sh).
# `npm test` runs it; `npm run lint` alone. Exits non-zero when any of them finds something.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT_DIR"
status=0
log "lint: ESLint (type-checked rules)"
npx --no-install eslint --cache --cache-location .data/eslintcache . || status=1
log "lint: Prettier check"
npx --no-install prettier --check --log-level warn . || status=1
log "lint: import cycles (dpdm)"
bash "$ROOT_DIR/scripts/import-cycles.sh" || status=1
exit "$status"
