/**
 * Issue 22: "a workflow bundle built at image build time". The compiled bundle command writes the bundle
 * the image builds (src/cli/bundle-workflows.ts); the compiled worker given WORKFLOW_BUNDLE_PATH loads it
 * instead of bundling at start, and runs a workflow from it; a path that does not exist stops start-up.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { housekeepingWorkflow } from '../../workflows/housekeeping';
import { eventually } from '../helpers/app';
import { compiledProcesses, exited } from '../helpers/processes';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let tmp: string;
let bundle: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
  bundle = path.join(tmp, 'workflow-bundle.js');
  const built = spawnSync(process.execPath, [path.join(DIST, 'src/cli/bundle-workflows.js'), bundle], { encoding: 'utf8' });
  expect([built.status, built.stderr]).toEqual([0, '']);
  stack = await openStackFixture('e2e-bundle');
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
  rmSync(tmp, { recursive: true, force: true });
});

it('the worker runs workflows from the prebuilt bundle', async () => {
  expect(existsSync(bundle)).toBe(true);
  let output = '';
  const worker = processes.start('worker/main.js', { ...stack.common, LOG_LEVEL: 'info', WORKFLOW_BUNDLE_PATH: bundle }, 'worker');
  worker.stdout!.on('data', (d) => (output += d));
  await eventually(() => expect(output).toContain('"msg":"worker running"'), 60_000);
  expect(output).toContain(`"workflowBundle":"${bundle}"`);
  const result = await stack.env.client.workflow.execute<typeof housekeepingWorkflow>('housekeepingWorkflow', {
    taskQueue: stack.common.TEMPORAL_TASK_QUEUE!,
    workflowId: `bundle-${Date.now()}`,
    args: [{ purges: [{ target: 'otp_challenges', keepMs: 60_000 }], batchSize: 10, maxBatches: 1 }],
  });
  expect(result).toEqual({ purged: { otp_challenges: 0 }, unfinished: [] });
});

it('a WORKFLOW_BUNDLE_PATH that does not exist stops start-up, naming it', async () => {
  let output = '';
  const worker = processes.start('worker/main.js', { ...stack.common, WORKFLOW_BUNDLE_PATH: path.join(tmp, 'missing.js') }, 'worker');
  worker.stderr!.on('data', (d) => (output += d));
  expect(await exited(worker)).toBe(1);
  expect(output).toContain(`WORKFLOW_BUNDLE_PATH: ${path.join(tmp, 'missing.js')} does not exist`);
});
