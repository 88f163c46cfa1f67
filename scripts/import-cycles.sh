#!/usr/bin/env bash
# Fails on any circular import among the given TypeScript files (default: every file of src/,
# workflows/, activities/, worker/ and bench/), whether it stays in one folder or passes through
# several, and then on any cycle between folders (scripts/folder-cycles.mjs: folder A imports B, which
# imports... A, though no file imports itself back). Type-only imports count: a type cycle still ties
# two modules together (no --transform). The cure is moving the shared type or small function to a
# module both sides import, or handing a dependency in, never an exception. `npm run lint` runs it;
# test/unit/import-cycles.test.ts runs it on fixtures and the tree.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT_DIR"
if [ "$#" -eq 0 ]; then
  set -- 'src/**/*.ts' 'workflows/**/*.ts' 'activities/**/*.ts' 'worker/**/*.ts' 'bench/**/*.ts'
fi
status=0
npx --no-install dpdm --no-tree --no-warning --no-progress --exit-code circular:1 "$@" || status=1
node scripts/folder-cycles.mjs "$@" || status=1
exit "$status"
