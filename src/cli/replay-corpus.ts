/**
 * `npm run corpus` (scripts/replay-corpus.sh starts a stack for it): writes the replay corpus, the histories
 * `npm test` replays against every change to workflows/ (test/workflows/replay-corpus.test.ts).
 *
 * Against a running stack (API at --url, its Temporal at TEMPORAL_ADDRESS): walks the demos (a physical
 * and an eSIM activation, the B2B walk: company, quote countered then accepted, a company-paid activation;
 * the store's order) and the other paths (src/cli/corpus-walks.ts), triggers every schedule once, waits for those runs to close, then saves the history
 * of every run started since it began as test/workflows/corpus/<release>/<workflowType>/<name>.json.
 *
 * The histories are stored as the server holds them: payloads encrypted. That is only acceptable because
 * the stack runs with the development payload key (a public constant, src/temporal/codec.ts) and the runs
 * hold demo data; the generator refuses any other key. Never build a corpus from a real namespace.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { loadConfig } from '../config';
import { connectTemporal } from '../temporal/connection';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { CORPUS_VARIANT_WALKS, CORPUS_WALKS, type Labels } from './corpus-walks';
import { runDemo } from './demo';
import { runB2bDemo } from './demo-b2b';
import type { DemoClientOptions } from './demo-client';
import { runStoreDemo } from './demo-store';
import { STACK_DATABASE_FILE, stackDatabaseUrl } from './stack-database';

const ROOT = path.resolve(__dirname, '..', '..', '..'); // dist/src/cli -> repository root
const SCHEDULED_RUNS_TIMEOUT_MS = 120_000;
/** The variant APIs' port (one at a time): CORPUS_VARIANT_PORT, else this. */
const VARIANT_PORT = 3402;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, messages: { type: 'string' }, release: { type: 'string' }, only: { type: 'string' } },
  });
  const config = loadConfig();
  // A corpus is committed: only the development key's ciphertext may go in it.
  if (config.TEMPORAL_PAYLOAD_KEYS) throw new Error('TEMPORAL_PAYLOAD_KEYS is set: the corpus is written with the development key only');
  const baseUrl = values.url ?? `http://127.0.0.1:${config.PORT}`;
  const messagesFile = path.resolve(ROOT, values.messages ?? '.data/messages.jsonl');
  const out = path.join(ROOT, 'test/workflows/corpus', values.release ?? defaultRelease());
  // Written aside, then put in place: a walk that fails leaves the committed corpus as it was.
  const staging = `${out}.partial`;
  rmSync(staging, { recursive: true, force: true });
  const { client, connection } = connectTemporal(config);
  try {
    const since = new Date();
    // --only a,b: those walks alone (no demos, no schedules), to try a new walk into a scratch --release.
    const only = values.only?.split(',');
    const labels = await walkDemos(baseUrl, messagesFile, only);
    if (!only) await triggerSchedules(client);
    // The named runs first, each in the order it was walked: of two runs on one path, the first walked
    // names it (the demos' paths before the walks that only repeat their events).
    const named = (run: WorkflowExecutionInfo) => Number(run.workflowId in labels);
    const runs = (await runsSince(client, since)).sort((a, b) => named(b) - named(a) || a.startTime.getTime() - b.startTime.getTime());
    const shapes = new Map<string, string>();
    let written = 0;
    for (const run of runs) {
      const name = fileName(run, labels);
      const repeats = await saveHistory(client, run, name, staging, shapes);
      if (!repeats) written += 1;
      else if (run.workflowId in labels) console.log(`${run.type} ${name} repeats the events of ${repeats}: not kept`);
    }
    // A release's histories are one generator run's: an earlier run of the same release is replaced.
    rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
    console.log(`${written} histories of ${runs.length} runs written to ${path.relative(ROOT, out)} (the rest repeat a path)`);
  } finally {
    await connection.close();
  }
}

/** `<package version>-<UTC date>`: the release the histories were written by. */
function defaultRelease(): string {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return `${version}-${new Date().toISOString().slice(0, 10)}`;
}

/**
 * The demos, then the corpus walks, one after the other: each is the path a real client takes, through the
 * real API. Returns the runs they started, by workflow id, named after their path.
 */
async function walkDemos(baseUrl: string, messagesFile: string, only?: string[]): Promise<Labels> {
  // Quiet: the demos' step-by-step output is for people watching one walk.
  const opts = { baseUrl, messagesFile, log: () => undefined };
  if (only) return walkCorpusPaths(baseUrl, opts, (name) => only.includes(name));
  const physical = await runDemo({ ...opts, simType: 'physical' });
  const esim = await runDemo({ ...opts, simType: 'esim' });
  const b2b = await runB2bDemo(opts);
  const store = await runStoreDemo(opts);
  const labels: Labels = {
    [activationWorkflowId(physical.activationId)]: 'identity-first-physical',
    [activationWorkflowId(esim.activationId)]: 'identity-first-esim',
    [activationWorkflowId(b2b.activationId)]: 'company-paid-seat',
    [companyWorkflowId(b2b.companyId)]: 'approved',
    [quoteWorkflowId(b2b.chainRootId)]: 'countered-then-accepted',
    [storeOrderWorkflowId(store.orderId)]: 'card-paid-issued',
  };
  return { ...labels, ...(await walkCorpusPaths(baseUrl, opts, () => true)) };
}

/** The corpus walks (src/cli/corpus-walks.ts) that `chosen` names, one after the other. */
async function walkCorpusPaths(baseUrl: string, opts: DemoClientOptions, chosen: (name: string) => boolean): Promise<Labels> {
  const labels: Labels = {};
  for (const [name, walk] of Object.entries(CORPUS_WALKS).filter(([name]) => chosen(name))) {
    const walked = await walk(opts).catch((err: unknown) => {
      throw new Error(`corpus walk ${name} failed`, { cause: err });
    });
    Object.assign(labels, walked);
  }
  for (const [name, variant] of Object.entries(CORPUS_VARIANT_WALKS).filter(([name]) => chosen(name))) {
    const walked = await withVariantApi(variant.env, (url) => variant.walk({ ...opts, baseUrl: url, stackUrl: baseUrl })).catch(
      (err: unknown) => {
        throw new Error(`corpus walk ${name} failed`, { cause: err });
      },
    );
    Object.assign(labels, walked);
  }
  return labels;
}

/**
 * Runs `walk` against an API of its own, started with `env` beside the stack's (same database, Temporal
 * and worker) on VARIANT_PORT, and stops it after (it may have died on purpose: FAULT_INJECTION).
 */
async function withVariantApi<T>(env: Record<string, string>, walk: (url: string) => Promise<T>): Promise<T> {
  const databaseUrl = process.env.DATABASE_URL ?? (await stackDatabaseUrl());
  if (!databaseUrl) throw new Error(`no DATABASE_URL and none in ${STACK_DATABASE_FILE}`);
  const port = Number(process.env.CORPUS_VARIANT_PORT ?? VARIANT_PORT);
  const logFile = path.join(process.env.STACK_DATA_DIR ?? path.join(ROOT, '.data'), 'variant-api.log');
  const log = openSync(logFile, 'a');
  const api = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), ...env },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise((resolve) => api.once('exit', resolve));
  try {
    const url = `http://127.0.0.1:${port}`;
    for (
      let n = 0;
      !(await fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false));
      n++
    ) {
      if (n > 120 || api.exitCode !== null) throw new Error(`the variant API (${JSON.stringify(env)}) did not start: ${logFile}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return await walk(url);
  } finally {
    api.kill('SIGTERM');
    await exited;
    closeSync(log);
  }
}

/** Each schedule once, now, and waits until the runs they started have closed (their histories are whole). */
async function triggerSchedules(client: Client): Promise<void> {
  const types = new Set<string>();
  for await (const schedule of client.schedule.list()) {
    if (schedule.action?.type === 'startWorkflow') types.add(schedule.action.workflowType);
    await client.schedule.getHandle(schedule.scheduleId).trigger();
  }
  const deadline = Date.now() + SCHEDULED_RUNS_TIMEOUT_MS;
  for (;;) {
    const running = await runs(client, 'ExecutionStatus = "Running"');
    if (!running.some((run) => types.has(run.type))) return;
    if (Date.now() > deadline) throw new Error(`scheduled runs still running after ${SCHEDULED_RUNS_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function runs(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const run of client.workflow.list({ query })) found.push(run);
  return found;
}

/** Every run started since `since`, closed or still running (a running one's history is what a deploy meets). */
function runsSince(client: Client, since: Date): Promise<WorkflowExecutionInfo[]> {
  return runs(client, `StartTime >= "${since.toISOString()}"`);
}

/**
 * `<status>-<path>`: the status says which end the run reached (a running one is what a deploy meets), the
 * path is the walk's name for it, or for a scheduled run its schedule's id (its workflow id less the time),
 * else the workflow id.
 */
function fileName(run: WorkflowExecutionInfo, labels: Labels): string {
  const scheduled = /^(.*)-\d{4}-\d{2}-\d{2}T[\d:]+Z$/.exec(run.workflowId)?.[1];
  const path = labels[run.workflowId] ?? scheduled ?? run.workflowId;
  return `${run.status.name.toLowerCase()}-${path.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

/**
 * Writes `<out>/<type>/<name>`, or returns the name of the history already kept whose events (their types in
 * order, and whether an activity ran again) this run repeats: it walked the same path as far as a replay can
 * tell, so the corpus keeps one history per path, small and fast to replay.
 */
async function saveHistory(
  client: Client,
  run: WorkflowExecutionInfo,
  name: string,
  out: string,
  shapes: Map<string, string>,
): Promise<string | undefined> {
  const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const events = (history.events ?? []).map((event) => {
    const again = (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1;
    return `${event.eventType}${again ? '+again' : ''}`;
  });
  const shape = [run.type, ...events].join(' ');
  const kept = shapes.get(shape);
  if (kept) return kept;
  const dir = path.join(out, run.type);
  mkdirSync(dir, { recursive: true });
  const file = unused(dir, name);
  shapes.set(shape, file);
  // Compact (historyToJSON indents): a third smaller, and the files are read by the replay, not by people
  // (the Temporal UI, or any JSON viewer, shows a run's events).
  const json = JSON.stringify(JSON.parse(historyToJSON(history)));
  writeFileSync(path.join(dir, file), json + '\n');
  return undefined;
}

/** `name`, or `name` with -2, -3… when two runs of one path differ (their names alone would collide). */
function unused(dir: string, name: string): string {
  const base = name.replace(/\.json$/, '');
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${base}-${n}.json`;
    if (!existsSync(path.join(dir, candidate))) return candidate;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
