/**
 * The API against its own OpenAPI document: `npm run fuzz` (scripts/fuzz.sh) as one test. It
 * starts the real app (test/contract/fuzz-target.ts) and runs schemathesis with every check,
 * every phase and the seeded identities (test/contract/schemathesis.toml); it passes only when
 * schemathesis reports no failure and no error. Set-up is skipped: `npm test` has just run it
 * (compiled dist/ and installed schemathesis). The database is a throw-away one on the test
 * run's PostgreSQL (TEST_DATABASE_ADMIN_URL, from the global set-up).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJunit } from './junit';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const FUZZ_DIR = path.join(REPO_ROOT, '.data', 'fuzz', 'jest');
/** schemathesis' own budget is `max-time` in the config; this covers start-up and stop around it. */
const LIMIT_MS = 8 * 60_000;

jest.setTimeout(LIMIT_MS + 30_000);

let child: ChildProcess | undefined;

afterAll(() => {
  // The runner stops the target from its exit trap; signal its whole process group.
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
});

function runFuzz(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    child = spawn('bash', [path.join(REPO_ROOT, 'scripts', 'fuzz.sh')], {
      cwd: REPO_ROOT,
      env: { ...process.env, FUZZ_SKIP_SETUP: '1', FUZZ_DIR },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child?.pid && process.kill(-child.pid, 'SIGTERM'), LIMIT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

it('schemathesis finds no failures and no errors against the real app', async () => {
  expect(existsSync(path.join(REPO_ROOT, 'dist', 'test', 'contract', 'fuzz-target.js'))).toBe(true);
  const started = Date.now();
  const { code, output } = await runFuzz();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const junitFile = path.join(FUZZ_DIR, 'junit.xml');
  if (!existsSync(junitFile)) throw new Error(`schemathesis wrote no report (exit ${code}) after ${seconds} s:\n${output.slice(-6000)}`);
  const report = parseJunit(readFileSync(junitFile, 'utf8'));
  console.log(
    `schemathesis: ${report.tests} operations, ${report.failures} failures, ${report.errors} errors in ${seconds} s (wall time, start-up included)`,
  );
  const problems = report.cases
    .filter((c) => c.problems.length)
    .map((c) => `## ${c.name}\n${c.problems.join('\n\n')}`)
    .join('\n\n');
  if (report.failures || report.errors || code !== 0) {
    throw new Error(
      `schemathesis: ${report.failures} failures, ${report.errors} errors (exit ${code}); ` +
        `reproduce with \`npm run fuzz\` (seed in test/contract/schemathesis.toml)\n\n${problems || output.slice(-6000)}`,
    );
  }
  // A run whose identities never got past the guards would pass while testing almost nothing:
  // the signed-in user, the super_admin and the stateful chains must each have been answered.
  const answered = (method: string, pathPattern: RegExp, status: number) =>
    readFileSync(path.join(FUZZ_DIR, 'api.log'), 'utf8')
      .split('\n')
      .some((line) => {
        const m = /"method":"([A-Z]+)","path":"([^"]*)"\},"res":\{"statusCode":(\d+)/.exec(line);
        return m !== null && m[1] === method && pathPattern.test(m[2]) && Number(m[3]) === status;
      });
  expect({
    session: answered('GET', /^\/auth\/session$/, 200),
    records: answered('GET', /^\/activations\/records$/, 200),
    activationCreated: answered('POST', /^\/activations$/, 201),
    activationStatus: answered('GET', /^\/activations\/[0-9a-f-]{36}\/status$/, 200),
    receipt: answered('GET', /^\/payments\/[0-9a-f-]{36}\/receipt$/, 200),
  }).toEqual({ session: true, records: true, activationCreated: true, activationStatus: true, receipt: true });
});
