/**
 * `npm run replay`: replays the histories a live namespace holds against this checkout's workflow code, before
 * a worker of it is deployed (docs/runbook.md, Deploying). A run whose history the new code cannot replay would
 * fail at its next task after the deploy; this finds it first.
 *
 *   npm run replay                                   every running run (ExecutionStatus = "Running")
 *   npm run replay -- --since 7d                     every run started in the last 7 days (also 12h, or an ISO time)
 *   npm run replay -- --query 'WorkflowType = "activationWorkflow"'
 *   npm run replay -- --bundle dist/workflow-bundle.js   a prebuilt bundle (default: WORKFLOW_BUNDLE_PATH, else bundle workflows/)
 *
 * Connects with the worker's configuration (src/config.ts): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, the TLS files,
 * TEMPORAL_API_KEY and TEMPORAL_PAYLOAD_KEYS (the histories' payloads are encrypted; the worker's keys read them).
 * Prints one line per workflow type (replayed, failed), then each failure; exits 1 on any failure.
 */
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ConfigError, loadConfig } from '../config';
import { dataConverterFromConfig } from '../temporal/codec';
import { connectTemporal } from '../temporal/connection';
import { bundleProductionWorkflows, formatReport, replayHistories, type NamedHistory } from '../temporal/replay';

const DEFAULT_QUERY = 'ExecutionStatus = "Running"';

/** `7d`, `12h`, `30m` back from now, or an ISO time. */
export function sinceTime(value: string, now = new Date()): Date {
  const relative = /^(\d+)([dhm])$/.exec(value);
  if (relative) {
    const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'];
    return new Date(now.getTime() - Number(relative[1]) * unitMs);
  }
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new Error(`--since: expected 7d, 12h, 30m or an ISO time, got ${value}`);
  return at;
}

/** The visibility query: --query as given; --since alone means every run started since then, whatever its status. */
export function replayQuery(opts: { query?: string; since?: string }, now = new Date()): string {
  const since = opts.since === undefined ? undefined : `StartTime >= "${sinceTime(opts.since, now).toISOString()}"`;
  if (opts.query && since) return `(${opts.query}) AND ${since}`;
  return opts.query ?? since ?? DEFAULT_QUERY;
}

/** Each matching run's history, fetched as the replay asks for the next: a large namespace is never held at once. */
async function* liveHistories(client: Client, query: string): AsyncGenerator<NamedHistory> {
  for await (const run of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    yield { name: `${run.workflowId} (run ${run.runId})`, workflowType: run.type, history };
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { query: { type: 'string' }, since: { type: 'string' }, bundle: { type: 'string' } } });
  const config = loadConfig();
  const query = replayQuery(values);
  // The SDK's replay workers log each state change at INFO; a failure's WARN is kept.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const codePath = values.bundle ?? config.WORKFLOW_BUNDLE_PATH;
  const bundle = codePath ? { codePath } : await bundleProductionWorkflows();
  const { client, connection } = connectTemporal(config);
  try {
    console.log(`replaying ${config.TEMPORAL_NAMESPACE} at ${config.TEMPORAL_ADDRESS}: ${query}`);
    const report = await replayHistories(bundle, dataConverterFromConfig(config), liveHistories(client, query));
    for (const line of formatReport(report)) console.log(line);
    const total = [...report.replayed.values()].reduce((a, b) => a + b, 0);
    console.log(`${total} replayed, ${report.failures.length} failed`);
    return report.failures.length === 0 ? 0 : 1;
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(2);
    },
  );
}
