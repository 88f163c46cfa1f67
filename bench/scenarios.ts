/**
 * The scenarios (a phase of `npm run bench`, `--only scenarios`): requests per second and latency
 * of real routes of the API next to a bare Express route served the same way on the same machine,
 * and the ratio between them. The machine is noisy, so only ratios measured within one run mean
 * anything; absolute figures are for context.
 *
 * - The app servers start their telemetry first, as src/main.ts does (lib/telemetry.ts, with
 *   --require): `app` at its defaults (metrics on, tracing off), `app+tracing` with an OTLP exporter to
 *   a sink in the parent and 10% of traces kept. Logs are written to /dev/null as the API writes them.
 * - Every server runs in its own child process (lib/servers.ts), so the server under test has a
 *   whole event loop and its own core to itself instead of sharing one thread with autocannon.
 *   The bare route gets exactly the same treatment, so the ratio compares like with like.
 * - On 2 cores, server + autocannon fill both; for database-backed routes PostgreSQL competes for
 *   the same cores. That is the honest cost of the route on this machine, and it is part of what
 *   the ratio shows.
 * - Scenarios run alternately (bare, healthz, session, ...) for several rounds and the median
 *   of each is reported, so slow drifts of the machine hit both sides alike. Each measurement is
 *   preceded by a short warm-up.
 * - Besides req/s and latency, each measurement records the CPU time per request of the server
 *   process (asked over IPC), of PostgreSQL (all its processes, from /proc) and of autocannon: this
 *   says where the time goes and is steadier than req/s when other work shares the machine.
 *
 * Adding a scenario: append to SCENARIOS below (name, server, method, path, headers from the
 * fixtures, optional body and budget). A scenario that needs data seeds it in the `app` server's
 * sign-up (or a new fixture step), and a scenario that needs a differently built server adds a
 * kind to lib/servers.ts.
 */
import type { Phase, Options } from './lib/phase';
import { load, MOBILE_AUTH, type Scenario } from './lib/load';
import { printTable } from './lib/report';
import { serverCpu, type Child, type Fixtures, type ServerKind } from './lib/servers';
import { fmt, median } from './lib/stats';

/**
 * The routes issue 31 holds to a share of the bare route, with telemetry at its defaults (metrics on,
 * tracing off): at least what they had before the telemetry work. With tracing on (an OTLP exporter to a
 * local sink, 10% of traces kept) each must keep at least 85% of its own share without tracing.
 */
const BUDGETS: Array<{ name: string; path: string; auth?: boolean; min: number }> = [
  { name: 'healthz', path: '/healthz', min: 0.7 },
  { name: 'session', path: '/auth/session', auth: true, min: 0.56 },
  { name: 'operators', path: '/operators', min: 0.34 },
  { name: 'history', path: '/activations/history', auth: true, min: 0.34 },
];
const TRACED_SHARE = 0.85;

export const SCENARIOS: Scenario[] = [
  { name: 'bare', server: 'bare', path: '/bare' },
  ...BUDGETS.map(({ name, path, auth, min }): Scenario => ({
    name,
    server: 'app',
    path,
    headers: auth ? MOBILE_AUTH : undefined,
    baseline: 'bare',
    minThroughputRatio: min,
  })),
  ...BUDGETS.map(({ name, path, auth }): Scenario => ({
    name: `${name}+tracing`,
    server: 'app+tracing',
    path,
    headers: auth ? MOBILE_AUTH : undefined,
    baseline: 'bare',
    untraced: name,
    minShareOfUntraced: TRACED_SHARE,
  })),
  // Breakdown: the bare route plus exactly one piece of the real app, built from src/.
  { name: 'bare+security-headers', server: 'bare+security-headers', path: '/bare', baseline: 'bare', breakdown: true },
  { name: 'bare+request-log', server: 'bare+request-log', path: '/bare', baseline: 'bare', breakdown: true },
  { name: 'bare+request-log+metrics', server: 'bare+request-log+metrics', path: '/bare', baseline: 'bare', breakdown: true },
  { name: 'bare+rate-limit', server: 'bare+rate-limit', path: '/bare', baseline: 'bare', breakdown: true },
  { name: 'bare+session-check', server: 'bare+session-check', path: '/bare', headers: MOBILE_AUTH, baseline: 'bare', breakdown: true },
];

interface Measurement {
  round: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** CPU time per request (microseconds): the server process, PostgreSQL (all its processes), autocannon. */
  cpuPerRequest: { server: number; postgres: number | null; loadGenerator: number };
}

export interface ScenarioReport {
  name: string;
  server: ServerKind;
  method: string;
  path: string;
  runs: Measurement[];
  /** Medians over the rounds; CPU in microseconds per request. */
  median: { rps: number; p50: number; p99: number; serverCpu: number; postgresCpu: number | null };
  baseline?: string;
  throughputRatio?: number;
  /** Ratio of each round to the same round's baseline. */
  roundRatios?: number[];
  minThroughputRatio?: number;
  /** With tracing: this route's share of the baseline over its share without tracing. */
  shareOfUntraced?: number;
  minShareOfUntraced?: number;
  verdict?: 'PASS' | 'FAIL';
  invalid?: string;
}

/** The scenarios asked for (--breakdown adds the breakdown; --scenario narrows), with the ones they are compared with. */
function selected(opts: Options): Scenario[] {
  const asked = SCENARIOS.filter((s) => (opts.scenarios.size ? opts.scenarios.has(s.name) : opts.breakdown || !s.breakdown));
  const needed = new Set(asked.flatMap((s) => [s.name, s.baseline, s.untraced].filter((n): n is string => n !== undefined)));
  return SCENARIOS.filter((s) => needed.has(s.name));
}

export const scenariosPhase: Phase<ScenarioReport[]> = {
  name: 'scenarios',
  plan: (opts) =>
    `${opts.rounds} rounds x ${selected(opts).length} scenarios, ${opts.warmupSeconds}s warm-up + ${opts.durationSeconds}s each`,
  async run(ctx) {
    const scenarios = selected(ctx.opts);
    const { children, fixtures } = await ctx.appServers(scenarios.map((s) => s.server));
    const reports = await measureScenarios(scenarios, children, fixtures, ctx.opts, ctx.postgresCpu);
    printScenarios(reports);
    return reports;
  },
  verdict: (reports) => (reports.every((r) => !r.verdict || r.verdict === 'PASS') ? 'PASS' : 'FAIL'),
  skipped: [],
};

/** Alternating rounds of every scenario, then the medians, ratios and budgets. */
async function measureScenarios(
  scenarios: Scenario[],
  children: Map<ServerKind, Child>,
  fixtures: Fixtures,
  opts: Options,
  postgresCpu: () => number | null,
): Promise<ScenarioReport[]> {
  const runs = new Map<string, Measurement[]>(scenarios.map((s) => [s.name, []]));
  for (let round = 1; round <= opts.rounds; round++) {
    for (const scenario of scenarios) {
      const url = `http://127.0.0.1:${children.get(scenario.server)!.port}${scenario.path}`;
      const connections = scenario.connections ?? opts.connections;
      await load(url, scenario, fixtures, connections, opts.warmupSeconds);
      const server = children.get(scenario.server)!;
      const before = { server: await serverCpu(server), postgres: postgresCpu(), self: process.cpuUsage() };
      const r = await load(url, scenario, fixtures, connections, scenario.durationSeconds ?? opts.durationSeconds);
      const self = process.cpuUsage(before.self);
      const serverMicros = (await serverCpu(server)) - before.server;
      const pgAfter = postgresCpu();
      const perRequest = (micros: number) => (r.requests.total ? micros / r.requests.total : 0);
      const m: Measurement = {
        round,
        rps: r.requests.total / r.duration,
        p50: r.latency.p50,
        p99: r.latency.p99,
        mean: r.latency.average,
        max: r.latency.max,
        total: r.requests.total,
        errors: r.errors,
        timeouts: r.timeouts,
        non2xx: r.non2xx,
        statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
        cpuPerRequest: {
          server: perRequest(serverMicros),
          postgres: pgAfter === null || before.postgres === null ? null : perRequest(pgAfter - before.postgres),
          loadGenerator: perRequest(self.user + self.system),
        },
      };
      runs.get(scenario.name)!.push(m);
      const pgCpu = m.cpuPerRequest.postgres === null ? '' : `, postgres ${fmt(m.cpuPerRequest.postgres, 0)}`;
      console.log(
        `  round ${round} ${scenario.name.padEnd(20)} ${fmt(m.rps, 0).padStart(8)} req/s  p50 ${fmt(m.p50, 1)} ms  p99 ${fmt(m.p99, 1)} ms` +
          `  CPU us/req: server ${fmt(m.cpuPerRequest.server, 0)}${pgCpu}` +
          (m.non2xx || m.errors ? `  (non-2xx ${m.non2xx}, errors ${m.errors})` : ''),
      );
    }
  }

  const reports: ScenarioReport[] = scenarios.map((s) => {
    const rs = runs.get(s.name)!;
    const bad = rs.find((m) => m.non2xx > 0 || m.errors > 0);
    return {
      name: s.name,
      server: s.server,
      method: s.method ?? 'GET',
      path: s.path,
      runs: rs,
      median: {
        rps: median(rs.map((m) => m.rps)),
        p50: median(rs.map((m) => m.p50)),
        p99: median(rs.map((m) => m.p99)),
        serverCpu: median(rs.map((m) => m.cpuPerRequest.server)),
        postgresCpu: rs.some((m) => m.cpuPerRequest.postgres === null) ? null : median(rs.map((m) => m.cpuPerRequest.postgres!)),
      },
      baseline: s.baseline,
      minThroughputRatio: s.minThroughputRatio,
      minShareOfUntraced: s.minShareOfUntraced,
      invalid: bad ? `non-2xx ${bad.non2xx}, errors ${bad.errors} (status codes ${JSON.stringify(bad.statusCodes)})` : undefined,
    };
  });
  for (const r of reports) {
    const base = reports.find((b) => b.name === r.baseline);
    if (!base) continue;
    r.throughputRatio = r.median.rps / base.median.rps;
    r.roundRatios = r.runs.map((m, i) => m.rps / base.runs[i].rps);
    if (r.minThroughputRatio !== undefined) {
      r.verdict = !r.invalid && !base.invalid && r.throughputRatio >= r.minThroughputRatio ? 'PASS' : 'FAIL';
    }
  }
  for (const r of reports) {
    const untraced = reports.find((u) => u.name === scenarios.find((s) => s.name === r.name)?.untraced);
    if (!untraced?.throughputRatio || r.throughputRatio === undefined || r.minShareOfUntraced === undefined) continue;
    r.shareOfUntraced = r.throughputRatio / untraced.throughputRatio;
    r.verdict = !r.invalid && !untraced.invalid && r.shareOfUntraced >= r.minShareOfUntraced ? 'PASS' : 'FAIL';
  }

  return reports;
}

function printScenarios(reports: ScenarioReport[]): void {
  const rows = [['scenario', 'route', 'req/s', 'p50 ms', 'p99 ms', 'server CPU us/req', 'pg CPU us/req', 'vs baseline', 'budget']];
  for (const r of reports) {
    const ratio = r.throughputRatio === undefined ? '' : `${fmt(r.throughputRatio * 100, 1)}% of ${r.baseline}`;
    const rule =
      r.shareOfUntraced !== undefined
        ? `${fmt(r.shareOfUntraced * 100, 0)}% of untraced, >= ${fmt(r.minShareOfUntraced! * 100, 0)}%`
        : `>= ${fmt((r.minThroughputRatio ?? 0) * 100, 0)}%`;
    const budget = r.verdict ? `${r.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'} (${rule})` : r.invalid ? 'INVALID' : '';
    const pgCpu = r.median.postgresCpu === null ? 'n/a' : fmt(r.median.postgresCpu, 0);
    rows.push([
      r.name,
      `${r.method} ${r.path}`,
      fmt(r.median.rps, 0),
      fmt(r.median.p50, 1),
      fmt(r.median.p99, 1),
      fmt(r.median.serverCpu, 0),
      pgCpu,
      ratio,
      budget,
    ]);
  }
  console.log(`\nMedian of ${reports[0]?.runs.length ?? 0} alternating rounds:`);
  printTable(rows, (i) => i >= 2 && i <= 6);
  console.log('  (CPU us/req: CPU time a process used during the measurement / requests served; steadier than req/s on a busy machine)');
  for (const r of reports) {
    if (r.invalid) console.log(`  ${r.name}: INVALID measurement, ${r.invalid}`);
    if (r.roundRatios && r.roundRatios.length > 1) {
      console.log(`  ${r.name}: per-round ratio to ${r.baseline}: ${r.roundRatios.map((x) => `${fmt(x * 100, 1)}%`).join(', ')}`);
    }
  }
}
