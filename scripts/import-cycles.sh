#!/usr/bin/env bash
# Fails on any circular import among the given TypeScript files (default: every file of src/,
# workflows/, activities/, worker/ and bench/), whether it stays in one folder or passes through
# several. Type-only imports count: a type cycle still ties two modules together (no --transform).
# The cure is moving the shared type or small function to a module both sides import, never an
# exception. `npm run lint` runs it; test/unit/import-cycles.test.ts runs it on a fixture and the tree.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT_DIR"
if [ "$#" -eq 0 ]; then
  set -- 'src/**/*.ts' 'workflows/**/*.ts' 'activities/**/*.ts' 'worker/**/*.ts' 'bench/**/*.ts'
fi
exec npx --no-install dpdm --no-tree --no-warning --no-progress --exit-code circular:1 "$@"
