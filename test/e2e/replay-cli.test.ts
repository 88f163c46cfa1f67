/**
 * Issue 34: `npm run replay` (the compiled src/cli/replay.js) against a running stack's namespace, with the
 * worker's configuration (its payload keys read the encrypted histories): every run it finds replays against
 * the checkout's bundle with 0 failures; given a bundle with a non-deterministic edit it names the failed run
 * and exits 1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleProductionWorkflows } from '../../src/temporal/replay';
import type { fxFetchWorkflow } from '../../workflows/fx-fetch';
import { compiledProcesses } from '../helpers/processes';
import { eventually } from '../helpers/app';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'replay-cli-'));
  stack = await openStackFixture('e2e-replay');
  let output = '';
  const worker = processes.start('worker/main.js', { ...stack.common, LOG_LEVEL: 'info' }, 'worker');
  worker.stdout!.on('data', (d) => (output += d));
  await eventually(() => expect(output).toContain('"msg":"worker running"'), 60_000);
  await stack.env.client.workflow.execute<typeof fxFetchWorkflow>('fxFetchWorkflow', {
    taskQueue: stack.common.TEMPORAL_TASK_QUEUE!,
    workflowId: `replay-cli-fx-${Date.now()}`,
  });
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs the compiled command with the worker's environment; its exit code and output. */
function replay(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [path.join(DIST, 'src/cli/replay.js'), ...args], { env: stack.common });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

it('replays every run the query finds against the current bundle, one line per workflow type, 0 failures', async () => {
  const { code, out } = await replay(['--since', '1h']);
  expect(out).toContain('fxFetchWorkflow: 1 replayed, 0 failed');
  expect(out).toMatch(/\d+ replayed, 0 failed/);
  expect(code).toBe(0);
});

it('a bundle with a non-deterministic edit fails the run it cannot replay, by name, and exits 1', async () => {
  const bundle = path.join(tmp, 'edited-bundle.js');
  writeFileSync(bundle, (await bundleProductionWorkflows(require.resolve('../fixtures/nondeterministic-workflows'))).code);
  const { code, out } = await replay(['--since', '1h', '--bundle', bundle]);
  expect(out).toContain('fxFetchWorkflow: 1 replayed, 1 failed');
  expect(out).toMatch(/FAILED fxFetchWorkflow replay-cli-fx-\d+ \(run [0-9a-f-]+\): DeterminismViolationError: .*Nondeterminism error/);
  expect(code).toBe(1);
});
