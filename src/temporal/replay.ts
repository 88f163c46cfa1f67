// Replaying recorded histories against the workflow code of this checkout: the corpus test
// (test/workflows/replay-corpus.test.ts), its generator (src/cli/replay-corpus.ts) and `npm run replay`
// (src/cli/replay.ts) share it, so all three replay the bundle the worker runs (the same entry, failure
// converter and interceptor modules as src/cli/bundle-workflows.ts) and report failures the same way.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, Worker, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { BUNDLED_WORKFLOW_INTERCEPTOR_MODULES, workflowSinks } from '../telemetry/temporal';
import { FAILURE_CONVERTER_PATH } from './codec';

/** The worker's production bundle options; `workflowsPath` is overridable so a test can bundle a modified entry. */
export function productionBundleOptions(workflowsPath = require.resolve('../../workflows')): BundleOptions {
  return {
    workflowsPath,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    // Runs carry the request id to their activities and make spans: the image's bundle has both.
    workflowInterceptorModules: BUNDLED_WORKFLOW_INTERCEPTOR_MODULES,
    // Webpack's report only when something is wrong.
    logger: new DefaultLogger('WARN'),
  };
}

export function bundleProductionWorkflows(workflowsPath?: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode(productionBundleOptions(workflowsPath));
}

/** One history to replay: `name` says where it came from (a corpus file, or a workflow id and run). */
export interface NamedHistory {
  name: string;
  workflowType: string;
  history: History;
}

export interface ReplayFailure {
  workflowType: string;
  name: string;
  /** The SDK's message: a DeterminismViolationError names the first event that does not match. */
  error: string;
  errorName: string;
}

export interface ReplayReport {
  /** Histories replayed, per workflow type. */
  replayed: Map<string, number>;
  failures: ReplayFailure[];
}

/** The workflow type a history starts, from its first event. */
export function workflowTypeOf(history: History): string {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? 'unknown';
}

/**
 * Replays every history on one replay worker. `name` is handed to the SDK as the workflow id, so each
 * result comes back with the history's name. The sinks are the worker's (a no-op without tracing):
 * the bundled interceptors call them, and replay drops those calls anyway.
 */
export async function replayHistories(
  bundle: WorkflowBundleWithSourceMap | { codePath: string },
  dataConverter: DataConverter,
  histories: Iterable<NamedHistory> | AsyncIterable<NamedHistory>,
): Promise<ReplayReport> {
  const types = new Map<string, string>();
  async function* named() {
    for await (const h of histories) {
      types.set(h.name, h.workflowType);
      yield { workflowId: h.name, history: h.history };
    }
  }
  const report: ReplayReport = { replayed: new Map(), failures: [] };
  const results = Worker.runReplayHistories({ workflowBundle: bundle, dataConverter, sinks: workflowSinks(undefined) }, named());
  for await (const result of results) {
    const workflowType = types.get(result.workflowId) ?? 'unknown';
    report.replayed.set(workflowType, (report.replayed.get(workflowType) ?? 0) + 1);
    if (result.error) {
      report.failures.push({ workflowType, name: result.workflowId, error: result.error.message, errorName: result.error.name });
    }
  }
  return report;
}

/** Every `*.json` under `dir` (recursively) as a history, named by its path relative to `dir`. */
export function loadHistoryFiles(dir: string): NamedHistory[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort();
  return files.map((file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    return { name: file, workflowType: workflowTypeOf(history), history };
  });
}

/** One line per workflow type (count replayed, failures), then each failure with its error. */
export function formatReport(report: ReplayReport): string[] {
  const lines = [...report.replayed.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, count]) => {
      const failed = report.failures.filter((f) => f.workflowType === type).length;
      return `${type}: ${count} replayed, ${failed} failed`;
    });
  for (const f of report.failures) lines.push(`FAILED ${f.workflowType} ${f.name}: ${f.errorName}: ${f.error}`);
  return lines;
}
