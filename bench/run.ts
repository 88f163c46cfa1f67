/**
 * HTTP benchmark: `npm run bench` (scripts/bench.sh builds, then runs dist/bench/run.js).
 *
 * This file is the entry: the options, the phase table (PHASES) and the results file. Each phase
 * is one module (its parts, where it has several, in a folder of its name); what phases share is
 * in bench/lib: servers (servers.ts, child.ts, timed-app.ts), load generation (load.ts),
 * statistics (stats.ts), reporting (report.ts), processes, the database and /proc.
 *
 * What it measures: requests per second and latency of real routes of the API next to a bare
 * Express route served the same way on the same machine, and the ratio between them; then reads
 * at scale, timed inside their server, against budgets. The machine is noisy, so only ratios
 * measured within one run mean anything; absolute figures are for context.
 *
 * Process layout (the choice the issue asked us to document):
 *   - The parent process (this file) starts an embedded PostgreSQL, migrates a
 *     fresh database and runs the load generator (autocannon, programmatically, on
 *     its main thread; the parent does nothing else while a measurement runs).
 *   - Every server runs in its own child process (`fork` of lib/servers.ts with
 *     `--serve <kind>`, or of a phase's own server file), so the server under test
 *     has a whole event loop and its own core to itself instead of sharing one
 *     thread with autocannon. The bare route gets exactly the same treatment, so
 *     the ratio compares like with like.
 *   - On 2 cores, server + autocannon fill both; for database-backed routes
 *     PostgreSQL competes for the same cores. That is the honest cost of the
 *     route on this machine, and it is part of what the ratio shows.
 *
 * The phases, in the order they run (each file's header has the details):
 *   scenarios    bench/scenarios.ts: /healthz, /auth/session, /operators and /activations/history next to the
 *                bare route, on the app as src/main.ts boots it, telemetry at its defaults and with tracing on
 *                (issue 31's budgets); --breakdown adds one app layer at a time
 *   history      bench/history.ts: GET /activations/history at 10,000 and 1,000,000 activations
 *                (server-side p50 under 5 ms, at most 1.5 times the small size's, plans through the index)
 *   roster       bench/roster.ts: GET /b2b/roster at 10,000 and 100,000 roster rows (the same budgets)
 *   documents    bench/documents.ts: PDF receipts rendered in-process (p50 under 100 ms, font loaded once)
 *   b2b          bench/b2b.ts: 500-entry link send and export, GET /b2b/billing at 10,000 charges (p50 under 20 ms)
 *   admin-links  bench/admin-links.ts: GET /admin/links with 300,000 links (no budget)
 *   portal-reads bench/portal-reads.ts: every portal and admin read at 50 connections next to the bare route and
 *                GET /auth/session, at 2,000 and 20,000 roster entries (at least 50% of the session route, flat)
 *   store        bench/store.ts: GET /store/products at 1,000 and 10,000 products, written by the catalog sync
 *                (first page, deep cursor page, country, SAR: server-side p50 under 5 ms, flat, plans through indexes)
 *   store-orders bench/store-orders.ts: POST /store/orders (server-side p50 ≤ 20 ms, live health check included)
 *                and paid → issued on the dev server with the synchronous mock (p50 under 500 ms)
 *   webhooks     bench/webhook-burst.ts: 1,000 signed card-processor deliveries next to GET /healthz
 *                (at least 25%), each payment settled exactly once; payment -> activated p50 under 100 ms; Temporal down
 *   faults       bench/faults.ts: the fault matrix (test/e2e/fault-matrix.test.ts) with 30 journeys per fault,
 *                each fault's counts (0 refused, stuck, paid twice, untrue)
 *
 * Adding a phase: write bench/<name>.ts exporting a `Phase` (lib/phase.ts: its name, the line it
 * announces, run, and its verdict if it has a budget), and add it to PHASES below (its import and
 * one line). That gives it `--only <name>`, `--no-<name>` and its key in results.json. It gets
 * the options, the database, PostgreSQL's CPU meter, the clean-up list and the servers of
 * lib/servers.ts (`startServer`, and `appServers` for the signed-up user) from its context; a
 * phase with a server of its own forks it with lib/timed-app.ts as roster/b2b/admin-links do.
 *
 * Options (after `npm run bench --`):
 *   --rounds N        alternating rounds (default 2)
 *   --duration S      seconds per measurement (default 10)
 *   --warmup S        seconds of discarded warm-up before each measurement (default 2)
 *   --connections N   concurrent connections (default 50)
 *   --breakdown       also measure the bare route plus one app component at a time
 *                     (the request logger, the Postgres rate limiter, the session check)
 *   --scenario NAME   scenarios: only this one (repeatable), with what it is compared with; e.g.
 *                     `--only scenarios --scenario session --cpu-prof` profiles one route
 *   --cpu-prof        run the servers with --cpu-prof and summarise where their CPU
 *                     time goes (profiles in .data/bench/profiles; slows the servers)
 *   --history-rows N  activations in the history phase's second size (default 1000000; the first has 10000)
 *   --history-requests N  sequential requests per page and size (default 1000; the roster's and the store's too)
 *   --fault-journeys N  consumer journeys per fault of the fault matrix (default 30)
 *   --only P          run one phase only: scenarios, history, roster, documents, b2b, admin-links, portal-reads, store, store-orders, webhooks or faults
 *   --no-P            skip phase P (--no-history, --no-roster, --no-documents, --no-b2b,
 *                     --no-admin-links, --no-store, --no-store-orders, --no-webhooks, --no-faults; --no-scenarios too)
 *
 * Results: a table on stdout and `.data/bench/results.json`. The exit code is 0
 * even when a budget or check fails: this is a report; FAIL is printed clearly.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { adminLinksPhase } from './admin-links';
import { b2bPhase } from './b2b';
import { documentsPhase } from './documents';
import { faultsPhase } from './faults';
import { historyPhase } from './history';
import { portalReadsPhase } from './portal-reads';
import { rosterPhase } from './roster';
import { scenariosPhase } from './scenarios';
import { storePhase } from './store';
import { storeOrdersPhase } from './store-orders';
import { webhooksPhase } from './webhook-burst';
import { startDatabase } from './lib/database';
import { OUT_DIR, PROFILE_DIR, ROOT } from './lib/paths';
import type { Options, Phase, PhaseContext } from './lib/phase';
import { postgresCpuMeter } from './lib/proc';
import { Cleanups } from './lib/processes';
import { summariseProfiles } from './lib/profiles';
import { startAppServers, startServer, type AppServers, type StartOptions } from './lib/servers';

/** Every phase, in the order they run (and of their keys in results.json). */
const PHASES: Phase[] = [
  scenariosPhase,
  historyPhase,
  rosterPhase,
  documentsPhase,
  b2bPhase,
  adminLinksPhase,
  portalReadsPhase,
  storePhase,
  storeOrdersPhase,
  // Last: its 100 activations then never change the history phase's table, so history figures stay comparable across runs.
  webhooksPhase,
  // A stack of its own (the e2e test's): after the others, so its minutes of faults never disturb their figures.
  faultsPhase,
];

/** A phase's key in results.json: its name in camel case (admin-links is adminLinks). */
const key = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

function parseOptions(argv: string[]): Options {
  const opts: Options = {
    rounds: 2,
    durationSeconds: 10,
    warmupSeconds: 2,
    connections: 50,
    breakdown: false,
    cpuProf: false,
    historyRows: 1_000_000,
    historyRequests: 1000,
    faultJourneys: 30,
    phases: new Set(PHASES.map((p) => p.name)),
    scenarios: new Set(),
  };
  const num = (i: number) => {
    const v = Number(argv[i + 1]);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${argv[i]} needs a positive number`);
    return v;
  };
  // Named on the command line in kebab case (admin-links); the camel case of results.json works too.
  const phaseNamed = (name: string) => PHASES.find((p) => p.name === name || key(p.name) === name);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const skipped = arg.startsWith('--no-') ? phaseNamed(arg.slice('--no-'.length)) : undefined;
    if (arg === '--rounds') opts.rounds = Math.round(num(i++));
    else if (arg === '--duration') opts.durationSeconds = num(i++);
    else if (arg === '--warmup') opts.warmupSeconds = num(i++);
    else if (arg === '--connections') opts.connections = Math.round(num(i++));
    else if (arg === '--breakdown') opts.breakdown = true;
    else if (arg === '--scenario') opts.scenarios.add(argv[++i] ?? '');
    else if (arg === '--cpu-prof') opts.cpuProf = true;
    else if (arg === '--history-rows') opts.historyRows = Math.round(num(i++));
    else if (arg === '--history-requests') opts.historyRequests = Math.round(num(i++));
    else if (arg === '--fault-journeys') opts.faultJourneys = Math.round(num(i++));
    else if (skipped) opts.phases.delete(skipped.name);
    else if (arg === '--only') {
      const phase = phaseNamed(argv[++i] ?? '');
      if (!phase) throw new Error(`--only needs one of ${PHASES.map((p) => p.name).join(', ')}`);
      opts.phases = new Set([phase.name]);
    } else throw new Error(`unknown option ${arg}`);
  }
  if (!opts.phases.size) throw new Error('every phase is switched off');
  for (const phase of PHASES) if (opts.phases.has(phase.name)) phase.check?.(opts);
  return opts;
}

/** LIFO cleanup that runs once, on success, error or signal. */
const cleanups = new Cleanups();

/** What the phases get: the options, the database, the clean-up list and the servers of lib/servers.ts. */
function phaseContext(opts: Options, databaseUrl: string, postgresCpu: () => number | null): PhaseContext {
  const onCleanup = (name: string, fn: () => Promise<void>) => cleanups.add(name, fn);
  const start: StartOptions = { databaseUrl, cpuProf: opts.cpuProf, onCleanup };
  let app: Promise<AppServers> | undefined;
  return {
    opts,
    databaseUrl,
    postgresCpu,
    onCleanup,
    startServer: (kind, env) => startServer(kind, { ...start, env }),
    appServers: (kinds) => (app ??= startAppServers(kinds, start)),
  };
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  await mkdir(OUT_DIR, { recursive: true });
  if (opts.cpuProf) {
    await rm(PROFILE_DIR, { recursive: true, force: true });
    await mkdir(PROFILE_DIR, { recursive: true });
  }

  const plans = PHASES.filter((p) => opts.phases.has(p.name)).map((p) => p.plan(opts));
  console.log(`bench: ${os.cpus().length} cpus, node ${process.version}; ${opts.connections} connections; ${plans.join('; then ')}`);
  console.log('bench: starting embedded PostgreSQL and migrating');
  const { url: databaseUrl, port: pgPort } = await startDatabase((name, fn) => cleanups.add(name, fn));
  const ctx = phaseContext(opts, databaseUrl, postgresCpuMeter(pgPort));

  const results: Record<string, unknown> = {};
  let verdict: 'PASS' | 'FAIL' = 'PASS';
  for (const phase of PHASES) {
    if (!opts.phases.has(phase.name)) {
      results[key(phase.name)] = phase.skipped;
      continue;
    }
    const result = await phase.run(ctx);
    results[key(phase.name)] = result;
    if (phase.verdict?.(result) === 'FAIL') verdict = 'FAIL';
  }

  const file = path.join(OUT_DIR, 'results.json');
  await writeFile(
    file,
    `${JSON.stringify(
      {
        generatedAt: new Date().toISOString(),
        machine: {
          node: process.version,
          platform: `${os.platform()} ${os.arch()}`,
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model,
          loadavg: os.loadavg(),
        },
        load: {
          connections: opts.connections,
          durationSeconds: opts.durationSeconds,
          warmupSeconds: opts.warmupSeconds,
          rounds: opts.rounds,
          cpuProf: opts.cpuProf,
        },
        verdict,
        ...results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nbench: results written to ${path.relative(ROOT, file)}`);
  if (opts.cpuProf) console.log('bench: --cpu-prof slows the servers; compare these figures only with each other');

  await cleanups.run(); // servers exit here, which writes their CPU profiles
  if (opts.cpuProf) await summariseProfiles();
  console.log(
    verdict === 'PASS'
      ? '\nbench: PASS, every budget and check holds'
      : '\nbench: *** FAIL *** a budget or check does not hold (see above)',
  );
}

const onSignal = (signal: NodeJS.Signals) => {
  console.error(`\nbench: ${signal}, cleaning up`);
  void cleanups.run().finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
main()
  .catch((err: unknown) => {
    console.error('bench: failed:', err instanceof Error ? (err.stack ?? err.message) : err);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
