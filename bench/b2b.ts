/**
 * The B2B portal's heavy routes (a phase of `npm run bench`, `--only b2b` / `--no-b2b`), issue 14:
 *
 * - POST /b2b/roster/links/send with 500 entries (the route's limit): mint and deliver, through the
 *   development message sink the app uses without providers (createFileMessageSender, one JSON line
 *   per message, here in a temporary file), to 500 staged people with an e-mail and a phone each
 *   (1,000 messages a send). Entries per second = 500 / the request's wall time.
 * - POST /b2b/roster/links/export with the same 500 entries: mint and return the raw links.
 *   Each is repeated (send, export, send, ...) after one unmeasured warm-up of each; every mint
 *   re-mints the same people (revoking their previous links), which the pipeline allows. The
 *   company is flexible and funded for far more than 500 seats, so every entry is accepted.
 * - GET /b2b/billing for a company with 10,000 charges (paid company orders with an activated
 *   activation and a completed payment, odd-halala totals over ~310 days), next to 500 of its
 *   orders whose activation failed or was cancelled and 20,000 consumer orders, all by SQL
 *   (b2b/fixtures.ts). Server-side p50 and p99 over sequential requests on one keep-alive
 *   connection, timed inside the server process (request event to the response's 'finish'), with
 *   GET /auth/session as the control (the machine's own drift); budget: p50 under 20 ms. The
 *   service keeps a company's charges while their version is unchanged (src/billing/service.ts), so
 *   these sequential reads are the warm path; the same route is then timed over 50 requests each
 *   after a write to one charge (its activation updated, which raises the version): the cold path,
 *   reported next to it without a budget. Before timing, the answer is checked: 10,000 charges
 *   newest first, summing exactly to outstandingSar, which is the Σ PostgreSQL computes from the
 *   seeded rows. EXPLAIN (ANALYZE, BUFFERS) of the charges statement is printed.
 *
 * The server runs in its own child process (b2b/server.ts, forked with `--serve-b2b`), like the
 * other phases' servers, so the client never shares its event loop. Both companies' admins sign up
 * and in through HTTP; companies, contracts and charges are written by SQL (the roster through the
 * route). The mints are measured in b2b/mint.ts, the billing reads in b2b/billing.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { openPool } from '../src/db/database';
import type { Phase } from './lib/phase';
import { fmt } from './lib/stats';
import type { TimedAppDeps } from './lib/timed-app';
import { BILLING_REQUESTS, CHARGES, measureBilling, type BillingReport } from './b2b/billing';
import { ENTRIES, measureMints, MINT_ROUNDS, type MintReport } from './b2b/mint';
import { CONTROL, INVITATION, startB2bServer } from './b2b/server';

export interface B2bReport {
  send: MintReport & { messagesWritten: number };
  export: MintReport;
  billing: BillingReport;
  verdict: 'PASS' | 'FAIL';
}

/** Its own timed server and companies. */
export const b2bPhase: Phase<B2bReport> = {
  name: 'b2b',
  plan: () => 'B2B link send/export and GET /b2b/billing at 10,000 charges',
  run: (ctx) => benchB2b(ctx),
  verdict: (report) => report.verdict,
};

async function benchB2b(deps: TimedAppDeps): Promise<B2bReport> {
  console.log(
    `\nbench: B2B portal: ${ENTRIES}-entry link send and export (${MINT_ROUNDS} each), ` +
      `GET /b2b/billing with ${fmt(CHARGES, 0)} charges (${BILLING_REQUESTS} sequential requests)`,
  );
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-b2b-'));
  deps.onCleanup('b2b messages file', () => rm(dir, { recursive: true, force: true }));
  const messagesFile = path.join(dir, 'messages.jsonl');
  const pool = openPool(deps.databaseUrl, 2);
  let db: PoolClient | undefined;
  try {
    db = await pool.connect();
    const server = await startB2bServer(deps, messagesFile);
    const [send, exported] = await measureMints(server, db);
    const messagesWritten = (await readFile(messagesFile, 'utf8'))
      .split('\n')
      .filter((l) => l.includes(`"purpose":"${INVITATION}"`)).length;
    const billing = await measureBilling(server, db);
    const report: B2bReport = {
      send: { ...send, messagesWritten },
      export: exported,
      billing,
      verdict: billing.budget.verdict,
    };
    printReport(report);
    return report;
  } finally {
    db?.release();
    await pool.end();
  }
}

function printReport(r: B2bReport): void {
  console.log(`\nB2B portal (each mint: ${ENTRIES} entries in one request; median of ${MINT_ROUNDS}):`);
  for (const m of [r.send, r.export]) {
    const runs = m.runs.map((x) => fmt(x.entriesPerSecond, 0)).join(', ');
    console.log(
      `  ${m.route.padEnd(32)} ${fmt(m.median.entriesPerSecond, 0)} entries/s (request ${fmt(m.median.ms, 0)} ms, ` +
        `server-side ${fmt(m.median.serverMs, 0)} ms; runs: ${runs} entries/s)`,
    );
  }
  console.log(`  (send delivered ${fmt(r.send.messagesWritten, 0)} invitation messages to the development sink in all its runs)`);
  const b = r.billing;
  console.log(
    `  ${b.route} with ${fmt(b.charges, 0)} charges (${fmt(b.bodyBytes / 1024, 0)} KiB answer), ${b.requests} sequential requests: ` +
      `server-side p50 ${fmt(b.server.p50, 2)} ms, p99 ${fmt(b.server.p99, 2)} ms (client p50 ${fmt(b.client.p50, 2)} ms); ` +
      `control ${CONTROL} server-side p50 ${fmt(b.control.server.p50, 2)} ms`,
  );
  console.log(
    `  the same, each request after a write to one charge (${b.afterWrite.requests} requests; the kept read is stale): ` +
      `server-side p50 ${fmt(b.afterWrite.server.p50, 2)} ms, p99 ${fmt(b.afterWrite.server.p99, 2)} ms`,
  );
  console.log(
    `  ${b.budget.verdict === 'PASS' ? 'PASS' : '*** FAIL ***'}  GET /b2b/billing server-side ${b.budget.limit}: ${fmt(b.server.p50, 2)} ms`,
  );
  console.log('  plan of the charges statement:');
  for (const line of b.explain.split('\n')) console.log(`    ${line}`);
}
