/** Printing shared by the phases: aligned tables and budget lines. */
import { fmt, type LatencyStats } from './stats';

/**
 * Prints rows (the first is the header) in columns two spaces apart; `right(i)` says which columns
 * are right-aligned; with `rule`, a line of dashes under the header.
 */
export function printTable(rows: string[][], right: (column: number) => boolean, rule = true): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (right(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(rows[0]));
  if (rule) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row));
}

/** A budget of the issue, PASS or FAIL; a ratio's name holds '/ p50', other numbers are milliseconds. */
export interface Budget {
  name: string;
  value: number | boolean;
  limit: string;
  verdict: 'PASS' | 'FAIL';
}

export function printBudgets(budgets: Budget[]): void {
  for (const b of budgets) {
    const value =
      typeof b.value === 'boolean' ? (b.value ? 'yes' : 'no') : b.name.includes('/ p50') ? fmt(b.value, 2) : `${fmt(b.value, 2)} ms`;
    console.log(`  ${b.name}: ${value} (${b.limit}) ${b.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'}`);
  }
}

/** The budgets of a sized read: server-side p50 under `maxP50Ms`, and the ratio of two sizes' p50 at most `maxRatio`. */
export function p50Budget(name: string, p50: number, maxP50Ms: number): Budget {
  return { name, value: p50, limit: `< ${maxP50Ms} ms`, verdict: p50 < maxP50Ms ? 'PASS' : 'FAIL' };
}

export function ratioBudget(name: string, ratio: number, maxRatio: number): Budget {
  return { name, value: ratio, limit: `<= ${maxRatio}`, verdict: ratio <= maxRatio ? 'PASS' : 'FAIL' };
}

export function verdictOf(budgets: Budget[]): 'PASS' | 'FAIL' {
  return budgets.every((b) => b.verdict === 'PASS') ? 'PASS' : 'FAIL';
}

/** One request kind of a sized read: server-side p50 and p99 of its sequential requests, and the client's p50. */
export function printSequential(label: string, q: { server: LatencyStats; client: LatencyStats }, width: number): void {
  console.log(
    `    ${`${label}:`.padEnd(width)} server-side p50 ${fmt(q.server.p50, 2)} ms, p99 ${fmt(q.server.p99, 2)} ms ` +
      `(client p50 ${fmt(q.client.p50, 2)} ms), sequential`,
  );
}

/** Server-side latencies of each request at two sizes of the data, as a phase measured them sequentially. */
export interface SizeLatencies<K extends string> {
  route: string;
  requestsPerKind: number;
  /** Column names of the two sizes, e.g. `1k` and `10k`. */
  sizes: [string, string];
  kinds: readonly K[];
  label: Record<K, string>;
  latencies: [Record<K, { server: Pick<LatencyStats, 'p50' | 'p99'> }>, Record<K, { server: Pick<LatencyStats, 'p50' | 'p99'> }>];
  p50Ratio: Record<K, number>;
  /** What the control request does not read (`product`, `roster`): its ratio is the machine's own drift. */
  controlSkips: string;
}

/** The two-size table of the growth phases (store, roster): p50 and p99 per size and the p50 ratio. */
export function printSizeLatencies<K extends string>(r: SizeLatencies<K>): void {
  const [smallName, largeName] = r.sizes;
  console.log(`\n${r.route}, server-side latency of ${fmt(r.requestsPerKind, 0)} sequential requests each (one connection, no queueing):`);
  const rows = [['request', `p50 ms ${smallName}`, `p50 ms ${largeName}`, 'ratio', `p99 ms ${smallName}`, `p99 ms ${largeName}`]];
  for (const k of r.kinds) {
    const a = r.latencies[0][k].server;
    const b = r.latencies[1][k].server;
    rows.push([r.label[k], fmt(a.p50, 2), fmt(b.p50, 2), fmt(r.p50Ratio[k], 2), fmt(a.p99, 2), fmt(b.p99, 2)]);
  }
  printTable(rows, (i) => i > 0, false);
  console.log(`  (the control reads no ${r.controlSkips}: its ratio is how much the machine itself drifted between the sizes)`);
}
