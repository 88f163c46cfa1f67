/**
 * Issue 22: "a one-shot init that registers every search attribute the code uses". The compiled
 * `temporal-init` (compose's service of that name, and npm start's) against a dev server started without
 * any of ours: afterwards the namespace has each one with its type, a workflow start that sets them all
 * succeeds, and a second run changes nothing.
 */
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { createLocalEnv, REPO_ROOT, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createLocalEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function init(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/src/cli/temporal-init.js')], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'info', TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const added = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; added?: string[] })
    .find((line) => line.msg === 'search attributes registered')?.added;

it('registers every search attribute the code uses, once', async () => {
  const names = Object.keys(SEARCH_ATTRIBUTES);
  const before = await env.connection.operatorService.listSearchAttributes({ namespace: 'default' });
  expect(Object.keys(before.customAttributes ?? {})).not.toEqual(expect.arrayContaining(names));

  const first = await init();
  expect(first.code).toBe(0);
  expect(added(first.output)?.sort()).toEqual(names.filter((name) => !(name in (before.customAttributes ?? {}))).sort());
  const after = await env.connection.operatorService.listSearchAttributes({ namespace: 'default' });
  for (const key of Object.values(SEARCH_ATTRIBUTES)) {
    expect([key.name, after.customAttributes?.[key.name]]).toEqual([
      key.name,
      temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    ]);
  }

  // A start that sets every one of them is accepted (it was refused before: unknown search attributes).
  const handle = await env.client.workflow.start('anyWorkflow', {
    taskQueue: uniqueTaskQueue('init'),
    workflowId: `init-${Date.now()}`,
    typedSearchAttributes: new TypedSearchAttributes(Object.values(SEARCH_ATTRIBUTES).map((key) => ({ key, value: 'x' }))),
  });
  await handle.terminate();

  const second = await init();
  expect(second.code).toBe(0);
  expect(added(second.output)).toEqual([]);
});
