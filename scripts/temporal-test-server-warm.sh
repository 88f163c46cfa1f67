#!/usr/bin/env bash
# Creates, once, the AppCDS archive that makes scripts/temporal-test-server.sh start fast.
#
# It starts the test server through the wrapper with -XX:ArchiveClassesAtExit, waits until
# it answers gRPC, makes a few representative calls (system info, health, namespace, a
# workflow start/describe/terminate, test-service clock) so their classes are loaded too,
# then stops it with SIGTERM; the JVM writes the archive on exit. The archive is keyed
# by JDK, classpath, jar sizes/mtimes and JVM options (see the wrapper), so this is a
# no-op when the current archive exists, and a changed JDK or classpath makes a new one.
#
# Best effort: if anything fails, it says so and exits 0 (the wrapper works without the
# archive, just slower). `--force` rebuilds even if the archive exists.
set -uo pipefail

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$SCRIPTS_DIR/env.sh"
WRAPPER="$SCRIPTS_DIR/temporal-test-server.sh"

warn() { printf '[temporal-test-server-warm] %s\n' "$*" >&2; }

if [ ! -r "$TEMPORAL_TEST_SERVER_DIR/classpath.txt" ]; then
  warn "no classpath at $TEMPORAL_TEST_SERVER_DIR/classpath.txt; skipping CDS archive"
  exit 0
fi
ARCHIVE="$(bash "$WRAPPER" --cds-archive-path)" || { warn "cannot compute archive path"; exit 0; }
if [ -s "$ARCHIVE" ] && [ "${1:-}" != "--force" ]; then
  exit 0
fi
CDS_DIR="$(dirname "$ARCHIVE")"
mkdir -p "$CDS_DIR"
TMP_ARCHIVE="$ARCHIVE.tmp.$$"
LOG_FILE="$CDS_DIR/warm.log"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=""
for _ in $(seq 1 50); do
  candidate=$((20000 + RANDOM % 40000))
  if ! port_in_use "$candidate"; then PORT="$candidate"; break; fi
done
[ -n "$PORT" ] || { warn "no free port found"; exit 0; }

# gRPC over HTTP/2 cleartext with curl: one length-prefixed protobuf message per call.
HAVE_CURL=0
if command -v curl >/dev/null 2>&1 && curl --version | grep -qi 'http2\|nghttp2'; then HAVE_CURL=1; fi
# Protobuf helpers (short fields only: every length < 128).
pb_str() { printf "\\x$(printf %02x $(($1 << 3 | 2)))\\x$(printf %02x ${#2})%s" "$2"; }
pb_msg() { printf "\\x$(printf %02x $(($1 << 3 | 2)))\\x$(printf %02x ${#2})"; printf '%s' "$2"; }
grpc_call() { # <service/method> <protobuf body>; prints the grpc-status
  local body="$2" frame
  frame="$(mktemp)"
  { printf '\x00'; printf "\\x$(printf %02x $((${#body} >> 24 & 255)))\\x$(printf %02x $((${#body} >> 16 & 255)))\\x$(printf %02x $((${#body} >> 8 & 255)))\\x$(printf %02x $((${#body} & 255)))"; printf '%s' "$body"; } >"$frame"
  curl -s -o /dev/null --max-time 10 --http2-prior-knowledge -X POST \
    -H 'content-type: application/grpc' -H 'te: trailers' \
    --data-binary "@$frame" -D - "http://127.0.0.1:$PORT/$1" | tr -d '\r' | sed -n 's/^grpc-status: //p'
  rm -f "$frame"
}

# TEMPORAL_WARM_TRACE=1 prints each call's grpc-status.
trace() { if [ -n "${TEMPORAL_WARM_TRACE:-}" ]; then sed "s/^/grpc-status /" >&2; else cat >/dev/null; fi; }

STARTED_AT=$(date +%s)
TEMPORAL_TEST_SERVER_CDS="dump=$TMP_ARCHIVE" bash "$WRAPPER" "$PORT" >"$LOG_FILE" 2>&1 &
PID=$!
cleanup() { kill -KILL "$PID" 2>/dev/null; rm -f "$TMP_ARCHIVE"; }
trap cleanup EXIT

ready=0
for _ in $(seq 1 600); do # up to 60 s
  if ! kill -0 "$PID" 2>/dev/null; then break; fi
  if port_in_use "$PORT"; then ready=1; break; fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  warn "test server did not start (see $LOG_FILE); skipping CDS archive"
  exit 0
fi

if [ "$HAVE_CURL" = 1 ]; then
  WS=temporal.api.workflowservice.v1.WorkflowService
  NS="$(pb_str 1 default)"
  EXEC="$(pb_str 1 cds-warm)"
  grpc_call "$WS/GetSystemInfo" "" | trace
  grpc_call grpc.health.v1.Health/Check "" | trace
  grpc_call "$WS/DescribeNamespace" "$NS" | trace
  grpc_call temporal.api.testservice.v1.TestService/GetCurrentTime "" | trace
  # StartWorkflowExecution(namespace, workflow_id, workflow_type{name}, task_queue{name}, identity, request_id)
  grpc_call "$WS/StartWorkflowExecution" "$NS$(pb_str 2 cds-warm)$(pb_msg 3 "$(pb_str 1 Warm)")$(pb_msg 4 "$(pb_str 1 cds-warm)")$(pb_str 9 warm)$(pb_str 10 0b8f5d0e-2d0c-4c55-9d43-5b2f7c0e0001)" | trace
  grpc_call "$WS/DescribeWorkflowExecution" "$NS$(pb_msg 2 "$EXEC")" | trace
  grpc_call "$WS/GetWorkflowExecutionHistory" "$NS$(pb_msg 2 "$EXEC")" | trace
  grpc_call "$WS/SignalWorkflowExecution" "$NS$(pb_msg 2 "$EXEC")$(pb_str 3 warm)" | trace
  grpc_call "$WS/TerminateWorkflowExecution" "$NS$(pb_msg 2 "$EXEC")" | trace
fi

kill -TERM "$PID" 2>/dev/null
for _ in $(seq 1 300); do # the dump takes a few seconds
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
wait "$PID" 2>/dev/null
if [ -s "$TMP_ARCHIVE" ]; then
  mv -f "$TMP_ARCHIVE" "$ARCHIVE"
  # Archives for other JDKs/classpaths are dead weight.
  find "$CDS_DIR" -maxdepth 1 -name 'test-server-*.jsa' ! -path "$ARCHIVE" -delete 2>/dev/null
  warn "created $ARCHIVE in $(($(date +%s) - STARTED_AT))s"
else
  warn "the JVM wrote no archive (see $LOG_FILE); the test server will start without it"
fi
exit 0
