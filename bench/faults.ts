/**
 * The fault matrix at bench sizes (a phase of `npm run bench`, `--only faults` / `--no-faults`): runs
 * test/e2e/fault-matrix.test.ts (the compiled stack, the Temporal dev server, PostgreSQL) under jest with
 * `--fault-journeys` journeys per fault (default 30) and Temporal stopped 60 s, and prints each fault's
 * counts from the report the test writes (FAULT_REPORT_FILE). PASS when every fault is clean: 0 refused,
 * 0 stuck, 0 paid twice, 0 untrue answers (the test's own expectations, which also fail the run).
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { OUT_DIR, ROOT } from './lib/paths';
import type { Phase } from './lib/phase';
import { printTable } from './lib/report';

const REPORT_FILE = path.join(OUT_DIR, 'fault-matrix.json');
const COUNTS = ['journeys', 'refused', 'stuck', 'paidTwice', 'untrue', 'waited', 'recovered', 'later', 'catchUpMs'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;

/** One fault's counts, or one per journey kind (consumer, store orders, company seats). */
type FaultReport = Counts | Record<string, Counts>;

export interface FaultsResult {
  journeysPerFault: number;
  exitCode: number;
  faults: Record<string, FaultReport>;
}

const isCounts = (r: FaultReport): r is Counts => typeof (r as Counts).journeys === 'number';
const rowsOf = (fault: string, r: FaultReport): [string, Counts][] =>
  isCounts(r) ? [[fault, r]] : Object.entries(r).map(([kind, counts]) => [`${fault} / ${kind}`, counts]);
const clean = (c: Counts) => !c.refused && !c.stuck && !c.paidTwice && !c.untrue;

function runMatrix(journeys: number): Promise<number> {
  const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const child = spawn(process.execPath, [jest, '--runInBand', 'test/e2e/fault-matrix.test.ts'], {
    cwd: ROOT,
    env: { ...process.env, FAULT_JOURNEYS: String(journeys), FAULT_REPORT_FILE: REPORT_FILE },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

export const faultsPhase: Phase<FaultsResult> = {
  name: 'faults',
  plan: (opts) => `the fault matrix, ${opts.faultJourneys} journeys per fault (test/e2e/fault-matrix.test.ts)`,
  async run(ctx) {
    const journeys = ctx.opts.faultJourneys;
    console.log(`\n== Fault matrix: ${journeys} journeys per fault ==`);
    await rm(REPORT_FILE, { force: true });
    const exitCode = await runMatrix(journeys);
    const faults = JSON.parse(await readFile(REPORT_FILE, 'utf8').catch(() => '{}')) as Record<string, FaultReport>;
    const rows = Object.entries(faults).flatMap(([fault, r]) => rowsOf(fault, r));
    printTable(
      [['fault', ...COUNTS], ...rows.map(([name, c]) => [name, ...COUNTS.map((k) => String(c[k] ?? ''))])],
      (column) => column > 0,
    );
    return { journeysPerFault: journeys, exitCode, faults };
  },
  verdict: (r) => (r.exitCode === 0 && Object.values(r.faults).every((f) => rowsOf('', f).every(([, c]) => clean(c))) ? 'PASS' : 'FAIL'),
};
