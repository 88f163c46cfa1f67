/**
 * Issue 22: "the worker's grace and force times set, a worker health endpoint". The compiled worker as a
 * real process with WORKER_HEALTH_PORT: GET /healthz answers 503 `starting` while Temporal cannot be
 * reached, 200 `ok` once the worker polls (Postgres reported), and never 200 again after SIGTERM; the
 * worker logs the shutdown grace and force times it runs with.
 */
import { eventually } from '../helpers/app';
import { compiledProcesses, exited, freePort } from '../helpers/processes';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(120_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;

beforeAll(async () => {
  stack = await openStackFixture('e2e-worker-health');
});
afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

interface Health {
  status: string;
  worker: string;
  checks: { postgres: string };
}

async function health(port: number): Promise<{ status: number; body: Health }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: res.status, body: (await res.json()) as Health };
}

function startWorker(env: NodeJS.ProcessEnv) {
  let output = '';
  const child = processes.start('worker/main.js', { ...stack.common, LOG_LEVEL: 'info', ...env }, 'worker');
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, output: () => output };
}

it('answers 503 starting while Temporal cannot be reached, and the worker exits 0 at SIGTERM', async () => {
  const port = await freePort();
  const worker = startWorker({ WORKER_HEALTH_PORT: String(port), TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
  await eventually(async () =>
    expect(await health(port)).toEqual({ status: 503, body: { status: 'starting', worker: 'CONNECTING', checks: { postgres: 'ok' } } }),
  );
  worker.child.kill('SIGTERM');
  expect(await exited(worker.child)).toBe(0);
});

it('answers 200 while the worker polls, runs with the configured grace and force times, and is off from SIGTERM', async () => {
  const port = await freePort();
  const worker = startWorker({ WORKER_HEALTH_PORT: String(port), WORKER_SHUTDOWN_GRACE_SECONDS: '7', WORKER_SHUTDOWN_FORCE_SECONDS: '9' });
  await eventually(
    async () => expect(await health(port)).toEqual({ status: 200, body: { status: 'ok', worker: 'RUNNING', checks: { postgres: 'ok' } } }),
    60_000,
  );
  const running = worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; shutdownGraceMs?: number; shutdownForceMs?: number })
    .find((line) => line.msg === 'worker running');
  expect(running).toMatchObject({ shutdownGraceMs: 7_000, shutdownForceMs: 9_000 });

  worker.child.kill('SIGTERM');
  // Until the process is gone, every answer says it is stopping.
  const answers: number[] = [];
  while (worker.child.exitCode === null) {
    const answer = await health(port).catch(() => undefined);
    if (answer) {
      answers.push(answer.status);
      expect(answer.body.status).toBe('stopping');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(answers.every((status) => status === 503)).toBe(true);
  expect(await exited(worker.child)).toBe(0);
});

it('refuses a force time that is not longer than the grace time', async () => {
  const worker = startWorker({ WORKER_SHUTDOWN_GRACE_SECONDS: '10', WORKER_SHUTDOWN_FORCE_SECONDS: '10' });
  expect(await exited(worker.child)).toBe(1);
  expect(worker.output()).toContain('WORKER_SHUTDOWN_FORCE_SECONDS: must be longer than WORKER_SHUTDOWN_GRACE_SECONDS');
});
