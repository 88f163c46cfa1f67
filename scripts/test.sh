#!/usr/bin/env bash
# One command for every test: set-up (idempotent, includes the type check), then
# Jest: API tests on a real embedded PostgreSQL, workflow tests on the Java
# time-skipping server and the Temporal dev server. Extra arguments go to Jest.
# Ends with one summary line: "Tests: N passed, N failed, N skipped".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
setup_tools
cd "$ROOT_DIR"
mkdir -p .data
results=.data/jest-results.json
rm -f "$results"
status=0
lint=passed
# The whole suite lints too; a run narrowed to some files (arguments for Jest) does not.
if [ "$#" -eq 0 ]; then bash "$ROOT_DIR/scripts/lint.sh" || { status=1; lint=failed; }; fi
log "running tests"
npx --no-install jest --ci --json --outputFile="$results" "$@" || status=$?
[ "$lint" = passed ] || log "lint failed (see above): npm run lint"

if [ -f "$results" ]; then
  node -e '
    const r = require(process.argv[1]);
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
    if (r.numTotalTests === 0) process.exitCode = 1;
  ' "$ROOT_DIR/$results" || status=1
else
  echo "Tests: 0 passed, 1 failed"
fi
exit "$status"
