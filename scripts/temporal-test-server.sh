#!/usr/bin/env bash
# Time-skipping Temporal test server (Java io.temporal:temporal-test-server), started
# by @temporalio/testing as `server.executable = { type: 'existing-path', path: <this file> }`.
#
# It runs LoopbackTestServer (scripts/temporal-test-server/LoopbackTestServer.java), which
# is io.temporal.testserver.TestServer.main bound to 127.0.0.1 only: TestServer itself
# listens on every interface. scripts/temporal-test-server-build.sh compiles it into the
# cache; this script builds it on the fly when it is missing or stale.
#
# The SDK runs `<this file> <port> [extraArgs...]` and gives the server about 5 seconds
# to accept gRPC connections, then stops it with SIGKILL. So this script must `exec` the
# JVM (no child left behind) and start quickly: C1 only, serial GC, a small heap and,
# when scripts/temporal-test-server-warm.sh has created it, an AppCDS archive of the
# classes the server loads at start-up.
#
# Also accepted for manual use: `--port <port>` / `--port=<port>`. Any other argument is
# passed through to LoopbackTestServer (like TestServer, it knows `--enable-time-skipping`;
# do not pass it from tests, the SDK unlocks skipping itself).
#
# Environment:
#   TEMPORAL_TEST_SERVER_JAVA_OPTS  extra JVM options, appended last (e.g. -Xmx1g)
#   TEMPORAL_TEST_SERVER_CDS=off    do not use the CDS archive
#   JAVA_HOME                       use $JAVA_HOME/bin/java instead of `java` on PATH
#
# `temporal-test-server.sh --cds-archive-path` prints where the archive for the current
# JDK + classpath lives (used by the warm-up script).
set -euo pipefail

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$SCRIPTS_DIR/env.sh"

CLASSPATH_FILE="$TEMPORAL_TEST_SERVER_DIR/classpath.txt"
if [ ! -r "$CLASSPATH_FILE" ]; then
  echo "temporal-test-server: $CLASSPATH_FILE is missing; run scripts/setup.sh" >&2
  exit 1
fi
CLASSPATH_VALUE="$(<"$CLASSPATH_FILE")"
CLASSPATH_VALUE="${CLASSPATH_VALUE//$'\n'/}"

# The loopback launcher, first on the classpath (so it is part of the CDS archive key).
# Built here, before the key is computed, when missing or older than its source or the
# classpath: plain file tests, no process when it is up to date. Never writes to stdout.
LAUNCHER_SOURCE="$SCRIPTS_DIR/temporal-test-server/LoopbackTestServer.java"
LAUNCHER_JAR="$TEMPORAL_TEST_SERVER_DIR/launcher/loopback-test-server.jar"
if ! { [ -s "$LAUNCHER_JAR" ] && [ "$LAUNCHER_JAR" -nt "$LAUNCHER_SOURCE" ] \
  && [ "$LAUNCHER_JAR" -nt "$CLASSPATH_FILE" ]; }; then
  bash "$SCRIPTS_DIR/temporal-test-server-build.sh" >&2 || true
  if [ ! -s "$LAUNCHER_JAR" ]; then
    echo "temporal-test-server: cannot build $LAUNCHER_JAR (see above); run scripts/temporal-test-server-build.sh" >&2
    exit 1
  fi
fi
CLASSPATH_VALUE="$LAUNCHER_JAR:$CLASSPATH_VALUE"

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="$(command -v java || true)"
fi
if [ -z "$JAVA" ]; then
  echo "temporal-test-server: no java on PATH (JDK 17+ needed)" >&2
  exit 1
fi

# Options that shape start-up. They are part of the archive key: an archive is only
# valid for the JVM flags, JDK and jars it was dumped with.
JVM_OPTS=(
  -XX:TieredStopAtLevel=1
  -XX:+UseSerialGC
  -Xms64m
  -Xmx512m
  -Xss512k
  -XX:-UsePerfData
  -Xshare:auto
  -Djava.awt.headless=true
)

# Archive key: the JDK binary, the classpath, each jar's size and mtime, and the options.
cds_archive_path() {
  local java_real jars key
  java_real="$(readlink -f "$JAVA")"
  IFS=':' read -r -a jars <<<"$CLASSPATH_VALUE"
  key="$(
    {
      printf '%s\n' "$java_real" "${JVM_OPTS[*]}" "$CLASSPATH_VALUE"
      stat -L -c '%s %Y %n' "$java_real" "${jars[@]}" 2>&1
    } | cksum | cut -d' ' -f1
  )"
  printf '%s/cds/test-server-%s.jsa\n' "$TEMPORAL_TEST_SERVER_DIR" "$key"
}

if [ "${1:-}" = "--cds-archive-path" ]; then
  cds_archive_path
  exit 0
fi

PORT=""
PASS_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="${2:-}"; shift 2 || shift ;;
    --port=*) PORT="${1#--port=}"; shift ;;
    *)
      if [ -z "$PORT" ] && [[ "$1" =~ ^[0-9]+$ ]]; then PORT="$1"; else PASS_ARGS+=("$1"); fi
      shift
      ;;
  esac
done
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
  echo "usage: temporal-test-server.sh <port> [--enable-time-skipping]" >&2
  exit 2
fi

CDS_OPTS=()
case "${TEMPORAL_TEST_SERVER_CDS:-on}" in
  off) ;;
  dump=*)
    # Used by temporal-test-server-warm.sh: record the loaded classes when the JVM exits.
    CDS_OPTS=(-XX:ArchiveClassesAtExit="${TEMPORAL_TEST_SERVER_CDS#dump=}")
    ;;
  *)
    ARCHIVE="$(cds_archive_path)"
    if [ -s "$ARCHIVE" ]; then
      CDS_OPTS=(-XX:SharedArchiveFile="$ARCHIVE")
    fi
    ;;
esac

# The server has slf4j-api without a binding: drop slf4j's three-line "no binding" notice
# from stderr, keep everything else. The filter reads the JVM's stderr and ends with it.
# shellcheck disable=SC2086 # TEMPORAL_TEST_SERVER_JAVA_OPTS is a word list on purpose
exec "$JAVA" "${JVM_OPTS[@]}" ${CDS_OPTS[@]+"${CDS_OPTS[@]}"} ${TEMPORAL_TEST_SERVER_JAVA_OPTS:-} \
  -cp "$CLASSPATH_VALUE" LoopbackTestServer "$PORT" ${PASS_ARGS[@]+"${PASS_ARGS[@]}"} \
  2> >(grep --line-buffered -v -E '^SLF4J: (Failed to load class "org.slf4j.impl.StaticLoggerBinder"|Defaulting to no-operation \(NOP\) logger|See http://www.slf4j.org/codes.html#StaticLoggerBinder)' >&2)
