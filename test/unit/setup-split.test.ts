/**
 * Issue 22: "`npm start` sets up only what the stack needs (Node, the Temporal CLI); the test-only tools are
 * set up by `npm test`." A copy of scripts/ with package.json and its lockfile in a folder of its own, an
 * empty tool cache, and every tool set-up might call replaced by a shim that writes down its call (node
 * passes through): `setup.sh stack` (what scripts/stack.sh runs) installs the packages, builds and fetches
 * the Temporal CLI, and calls no test tool; `setup.sh` (npm test's) goes on to them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const RECORDED = [
  'npm',
  'npx',
  'go',
  'mvn',
  'java',
  'python3',
  'python3.11',
  'python3.12',
  'python3.13',
  'docker-compose',
  'apt-get',
  'apt-cache',
  'sudo',
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'setup-split-'));
});

/** A project folder of its own: set-up writes its stamps there, never in this checkout. */
function project(): string {
  const root = mkdtempSync(path.join(dir, 'project-'));
  cpSync(path.join(ROOT, 'scripts'), path.join(root, 'scripts'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(ROOT, file), path.join(root, file));
  return root;
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs scripts/setup.sh with `args`; the tools it called, in order. */
function setup(args: string[]): { status: number | null; calls: string[] } {
  const bin = mkdtempSync(path.join(dir, 'bin-'));
  const log = path.join(bin, 'calls.log');
  writeFileSync(log, '');
  for (const tool of RECORDED) {
    // Every shim fails except the build steps of the stack: a test tool reached stops set-up there.
    const ok = ['npm', 'npx', 'go'].includes(tool);
    // npm install leaves a node_modules folder for its stamp.
    const effect = tool === 'npm' ? 'mkdir -p node_modules\n' : '';
    writeFileSync(path.join(bin, tool), `#!/bin/sh\necho "${tool} $*" >> "${log}"\n${effect}exit ${ok ? 0 : 1}\n`);
    chmodSync(path.join(bin, tool), 0o755);
  }
  writeFileSync(path.join(bin, 'node'), `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
  chmodSync(path.join(bin, 'node'), 0o755);
  const root = project();
  const result = spawnSync('bash', [path.join(root, 'scripts/setup.sh'), ...args], {
    cwd: root,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache') },
    encoding: 'utf8',
  });
  const calls = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
  return { status: result.status, calls: calls.map((line) => line.split(' ')[0]) };
}

it('`setup.sh stack` (npm start) builds and fetches the Temporal CLI, and calls no test tool', () => {
  const { status, calls } = setup(['stack']);
  expect(status).toBe(0);
  expect(calls).toEqual(['npm', 'npx', 'go']);
});

it('`setup.sh` (npm test) goes on to the test tools', () => {
  const { status, calls } = setup([]);
  expect(status).not.toBe(0);
  expect(calls.slice(0, 4)).toEqual(['npm', 'npx', 'go', 'mvn']);
});

it('stack.sh sets up the stack part only; test.sh everything', () => {
  // setup_tools (scripts/env.sh) runs setup.sh with its arguments, then puts the Node 24 it installed on PATH.
  expect(readFileSync(path.join(ROOT, 'scripts/stack.sh'), 'utf8')).toMatch(/^setup_tools stack$/m);
  expect(readFileSync(path.join(ROOT, 'scripts/test.sh'), 'utf8')).toMatch(/^setup_tools$/m);
  expect(readFileSync(path.join(ROOT, 'scripts/env.sh'), 'utf8')).toContain('bash "$ROOT_DIR/scripts/setup.sh" "$@"\n');
});
