#!/usr/bin/env bash
# Runs Node 24 (the cached one when the machine's is older) with the given arguments.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
exec node "$@"
