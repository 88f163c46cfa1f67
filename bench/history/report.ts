/** What the history phase (bench/history.ts) reports: results.json's `history`, and the lines it prints. */
import { printBudgets, printSequential, printTable, type Budget } from '../lib/report';
import { fmt } from '../lib/stats';
import { HISTORY_CONTROL_PATH, HISTORY_PAGES, type HistoryPage, type HistoryPhase } from './measure';

export interface HistoryReport {
  route: string;
  pageSize: number;
  seededUsers: number;
  benchUserRows: number;
  requestsPerPage: number;
  seedingSeconds: {
    small: { insert: number; settle: number };
    large: { drop: number; insert: number; rebuild: number; settle: number; total: number; rowsPerSecond: number };
  };
  phases: HistoryPhase[];
  /**
   * p50 at the large size / p50 at the small size, server-side, sequential. The
   * control route reads no activations: its ratio shows how much the machine
   * itself drifted between the two phases.
   */
  p50Ratio: Record<HistoryPage, number>;
  budgets: Budget[];
  verdict: 'PASS' | 'FAIL';
}

const HISTORY_PAGE_LABEL: Record<HistoryPage, string> = {
  first: 'first page',
  cursor: 'next page (cursor)',
  control: `control ${HISTORY_CONTROL_PATH}`,
};

export function printHistoryPhase(p: HistoryPhase, printPlan: boolean): void {
  const pg = p.load.cpuPerRequest.postgres === null ? '' : `, postgres ${fmt(p.load.cpuPerRequest.postgres, 0)}`;
  console.log(
    `  ${fmt(p.activations, 0)} activations (${fmt(p.counts.liveActivations, 0)} live; the bench user's live: ${p.counts.benchUserLive}):`,
  );
  console.log(
    `    first page under load (${p.load.connections} connections): ${fmt(p.load.rps, 0)} req/s, p50 ${fmt(p.load.p50, 1)} ms, ` +
      `p99 ${fmt(p.load.p99, 1)} ms (server-side p50 ${fmt(p.load.serverSide.p50, 1)} ms, queueing included); ` +
      `CPU us/req: server ${fmt(p.load.cpuPerRequest.server, 0)}${pg}` +
      (p.load.non2xx || p.load.errors ? `  (non-2xx ${p.load.non2xx}, errors ${p.load.errors})` : ''),
  );
  for (const k of HISTORY_PAGES) printSequential(HISTORY_PAGE_LABEL[k], p.sequential[k], 29);
  for (const e of p.explain) {
    console.log(
      `    EXPLAIN ${e.label}: ${e.activationsAccess.join(', ') || '(activations not read)'}; ` +
        `execution ${fmt(e.executionMs, 3)} ms, buffers hit ${e.sharedHit}, read ${e.sharedRead}`,
    );
  }
  // The full plan of the first page as the API runs it once PostgreSQL settles on the generic plan (all plans are in results.json).
  for (const e of p.explain.filter((x) => printPlan && x.label === 'first page, generic plan')) {
    console.log(`    plan (${e.label}):`);
    for (const line of e.text.split('\n')) console.log(`      ${line}`);
  }
}

export function printHistoryReport(h: HistoryReport): void {
  const [small, big] = h.phases as [HistoryPhase, HistoryPhase];
  const head = (p: HistoryPhase) =>
    p.activations % 1e6 === 0 ? `${p.activations / 1e6}M` : p.activations % 1e3 === 0 ? `${p.activations / 1e3}k` : fmt(p.activations, 0);
  const rows = [
    [
      'request',
      `p50 ms ${head(small)}`,
      `p50 ms ${head(big)}`,
      'ratio',
      `p99 ms ${head(small)}`,
      `p99 ms ${head(big)}`,
      `client p50 ${head(small)}`,
      `client p50 ${head(big)}`,
    ],
  ];
  for (const k of HISTORY_PAGES) {
    const a = small.sequential[k];
    const b = big.sequential[k];
    rows.push([
      HISTORY_PAGE_LABEL[k],
      fmt(a.server.p50, 2),
      fmt(b.server.p50, 2),
      fmt(h.p50Ratio[k], 2),
      fmt(a.server.p99, 2),
      fmt(b.server.p99, 2),
      fmt(a.client.p50, 2),
      fmt(b.client.p50, 2),
    ]);
  }
  console.log(
    `
${h.route} at ${fmt(small.activations, 0)} and ${fmt(big.activations, 0)} activations, the bench user's pages of ${h.pageSize}: ` +
      `server-side latency of ${fmt(h.requestsPerPage, 0)} sequential requests each (one connection, no queueing):`,
  );
  printTable(rows, (i) => i >= 1);
  console.log(`  (the control reads no activations: its ratio is how much the machine itself drifted between the phases)`);
  printBudgets(h.budgets);
}
