#!/usr/bin/env bash
# Compiles scripts/temporal-test-server/LoopbackTestServer.java (TestServer.main, bound to
# 127.0.0.1 only) against the test server's classpath into
# $TEMPORAL_TEST_SERVER_DIR/launcher/loopback-test-server.jar, which
# scripts/temporal-test-server.sh puts first on its classpath.
#
# A jar, not a class directory: the JDK refuses to dump a CDS archive when a non-empty
# directory is on the classpath ("Cannot have non-empty directory in paths"), and a jar's
# classes are archived too.
#
# Idempotent: a no-op (no JVM started) when the jar is newer than both the .java and
# classpath.txt; `--force` rebuilds anyway. Safe to run concurrently (each run builds in
# its own temporary directory and renames the jar into place). Writes only to stderr.
set -euo pipefail

SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$SCRIPTS_DIR/env.sh"

SOURCE="$SCRIPTS_DIR/temporal-test-server/LoopbackTestServer.java"
CLASSPATH_FILE="$TEMPORAL_TEST_SERVER_DIR/classpath.txt"
LAUNCHER_DIR="$TEMPORAL_TEST_SERVER_DIR/launcher"
LAUNCHER_JAR="$LAUNCHER_DIR/loopback-test-server.jar"

fail() { printf 'temporal-test-server-build: %s\n' "$*" >&2; exit 1; }

[ -r "$CLASSPATH_FILE" ] || fail "$CLASSPATH_FILE is missing; run scripts/setup.sh"
[ -r "$SOURCE" ] || fail "$SOURCE is missing"

if [ "${1:-}" != "--force" ] && [ -s "$LAUNCHER_JAR" ] \
  && [ "$LAUNCHER_JAR" -nt "$SOURCE" ] && [ "$LAUNCHER_JAR" -nt "$CLASSPATH_FILE" ]; then
  exit 0
fi

# The same JDK the wrapper runs (JAVA_HOME first), so the class file version fits it.
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
  JAVAC="$JAVA_HOME/bin/javac"
else
  JAVAC="$(command -v javac || true)"
fi
[ -n "$JAVAC" ] || fail "no javac on PATH (a JDK 17+ is needed, not just a JRE)"
JAR_TOOL="$(dirname "$(readlink -f "$JAVAC")")/jar"
[ -x "$JAR_TOOL" ] || JAR_TOOL="$(command -v jar || true)"
[ -n "$JAR_TOOL" ] || fail "no jar tool next to $JAVAC"

CLASSPATH_VALUE="$(<"$CLASSPATH_FILE")"
CLASSPATH_VALUE="${CLASSPATH_VALUE//$'\n'/}"

mkdir -p "$LAUNCHER_DIR"
WORK_DIR="$(mktemp -d "$LAUNCHER_DIR/.build.XXXXXX")"
trap 'rm -rf "$WORK_DIR"' EXIT
mkdir "$WORK_DIR/classes"

# C1 only, serial GC and no annotation-processor scan: about half the CPU time of a plain
# javac (~2 s instead of ~4 s), which matters when the wrapper builds on the fly.
FAST_JVM=(-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -J-XX:-UsePerfData)
"$JAVAC" "${FAST_JVM[@]}" --release 17 -proc:none -implicit:none -nowarn -encoding UTF-8 \
  -d "$WORK_DIR/classes" -cp "$CLASSPATH_VALUE" "$SOURCE" >&2 \
  || fail "javac failed for $SOURCE"
"$JAR_TOOL" "${FAST_JVM[@]}" --create --file "$WORK_DIR/launcher.jar" -C "$WORK_DIR/classes" . >&2 \
  || fail "jar failed"
mv -f "$WORK_DIR/launcher.jar" "$LAUNCHER_JAR"
