// Temporal test environments that work offline: both servers are local executables handed
// to @temporalio/testing as `existing-path` (the SDK's own download never works here).
//
// - createTimeSkippingEnv(): the Java time-skipping test server through
//   scripts/temporal-test-server.sh. Use it for anything with timers. It has no visibility
//   (`workflow.list`) and no worker versioning.
// - createLocalEnv(): the Temporal CLI dev server (real server, in-memory SQLite, headless,
//   loopback only). Use it for search attributes and listing.
//
// Both take a few hundred milliseconds to a few seconds to start: create one per test file
// in beforeAll, tear it down in afterAll, and do not run tests that share a time-skipping
// environment concurrently (skipping is global to the environment).
//
// Payloads are encrypted as in production: each environment's client uses `testDataConverter`
// (the payload codec with the development key, which test apps' configuration also gets), and
// every Worker.create in a test passes `dataConverter: testDataConverter` so both sides agree.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DataConverter, LogLevel, LogMetadata } from '@temporalio/common';
import { TestWorkflowEnvironment, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { Db } from '../../src/db/sql';
import { createLogger } from '../../src/http/logger';
import { dataConverterFromConfig, FAILURE_CONVERTER_PATH } from '../../src/temporal/codec';
import { createSignalRelay } from '../../src/workflow-signals/relay';
import { temporalSignalSender } from '../../src/workflow-signals/temporal';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'activation-sys');

/** Wrapper script that execs the Java time-skipping test server (scripts/env.sh exports it). */
export const TEST_SERVER_PATH = process.env.TEMPORAL_TEST_SERVER_PATH || path.join(REPO_ROOT, 'scripts', 'temporal-test-server.sh');
/** Temporal CLI built by scripts/setup.sh (scripts/env.sh exports it). */
export const TEMPORAL_CLI_PATH = process.env.TEMPORAL_CLI_PATH || path.join(CACHE_DIR, 'temporal-cli', 'v1.5.1', 'temporal');

/**
 * The data converter of test clients and workers: the payload codec with the development key
 * (TEMPORAL_PAYLOAD_KEYS unset, as in test apps' configuration) and the encoded failure messages.
 */
export const testDataConverter: DataConverter = dataConverterFromConfig({ NODE_ENV: 'test', TEMPORAL_PAYLOAD_KEYS: undefined });

/** Dynamic config every local dev server gets: offline, update-with-start enabled, eager activities (as npm start and compose run it). */
const DEV_SERVER_DYNAMIC_CONFIG = [
  'frontend.enableServerVersionCheck=false',
  'frontend.enableExecuteMultiOperation=true',
  'system.enableActivityEagerExecution=true',
];

function assertExecutable(file: string, what: string): void {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(`${what} not found or not executable at ${file}; run scripts/setup.sh (or set the env var)`);
  }
}

/** SDK logger for tests: drops the warning every workflow-only test worker would print. */
class TestLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (message.startsWith('No activities registered')) return;
    super.log(level, message, meta);
  }
}

let runtimeConfigured = false;
/**
 * Keeps the SDK's own logs at WARN (override with TEMPORAL_TEST_LOG_LEVEL) so test output
 * stays readable. Must run before the first connection; a Runtime someone else already
 * created is left as it is.
 */
function configureTestRuntime(): void {
  if (runtimeConfigured) return;
  runtimeConfigured = true;
  const level = (process.env.TEMPORAL_TEST_LOG_LEVEL ?? 'WARN') as LogLevel;
  try {
    Runtime.install({ logger: new TestLogger(level) });
  } catch {
    // Already installed or instantiated in this module registry: keep it.
  }
}

/**
 * The SDK gives a freshly started server ~5 s to accept connections. The wrapper starts in
 * ~0.5-1.2 s with its CDS archive, ~1.2-2.4 s without, but a machine busy with other test
 * files can still miss the window: start again once rather than fail the file.
 */
async function startWithRetry(start: () => Promise<TestWorkflowEnvironment>, attempts = 2): Promise<TestWorkflowEnvironment> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await start();
    } catch (error) {
      lastError = error;
      const message = error instanceof Error ? error.message : String(error);
      if (!/did not start within|failed to start ephemeral server|connect/i.test(message)) break;
    }
  }
  throw lastError;
}

/** Time-skipping environment on the Java test server (via scripts/temporal-test-server.sh); its client uses `dataConverter`. */
export async function createTimeSkippingEnv({
  dataConverter = testDataConverter,
}: { dataConverter?: DataConverter } = {}): Promise<TestWorkflowEnvironment> {
  assertExecutable(TEST_SERVER_PATH, 'Time-skipping test server wrapper (TEMPORAL_TEST_SERVER_PATH)');
  configureTestRuntime();
  return startWithRetry(() =>
    TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: TEST_SERVER_PATH } },
      client: { dataConverter },
    }),
  );
}

/**
 * Local dev server environment (Temporal CLI `server start-dev`): real visibility, search
 * attributes (`opts.server.searchAttributes`), no time skipping. Binds to 127.0.0.1, no UI,
 * in-memory database unless `opts.server.dbFilename` is given. `opts.server.extraArgs` are
 * appended after the harness's own dynamic config. The client uses `testDataConverter` unless
 * `opts.client.dataConverter` says otherwise.
 */
export async function createLocalEnv(opts: LocalTestWorkflowEnvironmentOptions = {}): Promise<TestWorkflowEnvironment> {
  const { server = {}, client = {}, ...rest } = opts;
  const executable = server.executable ?? { type: 'existing-path' as const, path: TEMPORAL_CLI_PATH };
  if (executable.type === 'existing-path') assertExecutable(executable.path, 'Temporal CLI (TEMPORAL_CLI_PATH)');
  configureTestRuntime();
  return startWithRetry(() =>
    TestWorkflowEnvironment.createLocal({
      ...rest,
      client: { dataConverter: testDataConverter, ...client },
      server: {
        ip: '127.0.0.1',
        ui: false,
        log: { format: 'pretty', level: 'error' },
        ...server,
        executable,
        extraArgs: [...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]), ...(server.extraArgs ?? [])],
      },
    }),
  );
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();
/**
 * Bundles a workflows module (file or directory) once per test file (Jest gives each test
 * file its own module registry, hence its own cache), with our failure converter, as the
 * worker bundles them in production. Pass the result as `workflowBundle` to every
 * Worker.create in that file. `interceptorModules`: workflow interceptors to bundle with them
 * (the worker's are WORKFLOW_INTERCEPTOR_MODULES, src/telemetry/temporal.ts); default none.
 */
export function bundleWorkflows(workflowsPath: string, interceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  const resolved = path.resolve(workflowsPath);
  const key = [resolved, ...interceptorModules].join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: resolved,
      failureConverterPath: FAILURE_CONVERTER_PATH,
      workflowInterceptorModules: interceptorModules,
      logger: new DefaultLogger('WARN'),
    });
    bundles.set(key, bundle);
    bundle.catch(() => bundles.delete(key));
  }
  return bundle;
}

/** A task queue no other test uses, so workers of different tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

export interface RunningTestWorker {
  worker: Worker;
  taskQueue: string;
  /** Shuts the worker down and waits until it has stopped. */
  stop(): Promise<void>;
}

/**
 * A worker on `env` with the test data converter, polling `taskQueue` (take one from uniqueTaskQueue)
 * and running until `stop()`: the beforeAll / afterAll pair of most workflow tests. Given the API's
 * database (`signals`), it also runs the signal relay beside it, as the worker process does: a signal
 * the API's own attempt left pending (it waited for an earlier one of its run, or Temporal was slow)
 * reaches its run.
 */
export async function runTestWorker(
  env: TestWorkflowEnvironment,
  opts: { taskQueue: string; workflowBundle: WorkflowBundleWithSourceMap; activities: WorkerOptions['activities']; signals?: Db },
): Promise<RunningTestWorker> {
  const { taskQueue } = opts;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: opts.workflowBundle,
    dataConverter: testDataConverter,
    activities: opts.activities,
  });
  const running = worker.run();
  const relay = opts.signals
    ? createSignalRelay({
        db: opts.signals,
        send: temporalSignalSender(env.client),
        logger: createLogger('silent'),
        batchSize: 50,
        pollIntervalMs: 1_000,
        maxBackoffMs: 1_000,
        baseBackoffMs: 100,
      })
    : undefined;
  relay?.start();
  return {
    worker,
    taskQueue,
    async stop() {
      await relay?.stop();
      worker.shutdown();
      await running;
    },
  };
}
