/**
 * Issue 34: every history of the replay corpus (test/workflows/corpus/<release>/<workflowType>/*.json, written
 * by `npm run corpus` from the real stack) replays against the workflow bundle of this checkout, bundled as
 * the worker's image bundles it. A change that is not deterministic against a run already written fails
 * here, naming the workflow type, the history's file and the first event that does not match.
 *
 * The histories hold payloads encrypted with the development key (a public constant): the corpus is demo
 * data from a stack run with it, so the test data converter (that key) reads them.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleProductionWorkflows, formatReport, loadHistoryFiles, replayHistories, type NamedHistory } from '../../src/temporal/replay';
import { testDataConverter } from '../helpers/temporal';

jest.setTimeout(120_000);

const CORPUS = path.join(__dirname, 'corpus');
// Every function workflows/index.ts exports (the worker registers each): a new one fails to compile here until
// it is listed, and then this test until the corpus holds its history.
const REGISTERED = {
  activationWorkflow: true,
  companyOnboardingWorkflow: true,
  fxFetchWorkflow: true,
  housekeepingWorkflow: true,
  quoteNegotiationWorkflow: true,
  retentionWorkflow: true,
  settlementWorkflow: true,
  storeCatalogSyncAllWorkflow: true,
  storeCatalogSyncWorkflow: true,
  storeOrderWorkflow: true,
} satisfies Record<keyof typeof import('../../workflows'), true>;
const WORKFLOW_TYPES = Object.keys(REGISTERED).sort();

let bundle: WorkflowBundleWithSourceMap;
let corpus: NamedHistory[];

beforeAll(async () => {
  // Each replay worker's state changes are INFO lines: only warnings (a replay's failure) are worth reading.
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test in this module registry installed one already: keep it.
  }
  corpus = loadHistoryFiles(CORPUS);
  bundle = await bundleProductionWorkflows();
});

it('holds a history of every workflow type the worker registers', () => {
  expect([...new Set(corpus.map((h) => h.workflowType))].sort()).toEqual(WORKFLOW_TYPES);
});

/**
 * The paths issue 34 names, by the walk's name for each (src/cli/corpus-walks.ts, the demos), as the
 * newest release's files name them after their status. Paths whose events repeat one of these are not
 * kept (docs/decisions/workflow-versioning.md says which): an initiation refused, a start made by the relay,
 * the worker killed mid-hand-off (the same events as `handoff-retried-then-activated`).
 */
const PATHS: Record<string, string[]> = {
  activationWorkflow: [
    'identity-first-physical',
    'identity-first-esim',
    'paid-first-by-mobile-wallet',
    'company-paid-seat',
    'identity-rejected-then-verified',
    'identity-expired-then-error-then-verified',
    'handoff-rejected',
    'handoff-retried-then-activated',
    'handoff-always-timing-out',
    'sim-limit-at-verification',
    'cancelled-by-account-deletion',
    'cancelled-at-deadline-unverified',
    'cancelled-at-deadline-verified-unpaid',
    'paid-checks-then-paid',
  ],
  settlementWorkflow: ['mobile-wallet-approved-by-callback', 'declined-in-wallet', 'lookups-exhausted'],
  storeOrderWorkflow: [
    'card-paid-issued',
    'issued-by-provider-callback',
    'placement-retried-then-issued',
    'refused-by-provider',
    'expired-unpaid',
  ],
  companyOnboardingWorkflow: ['approved', 'approved-suspended-reactivated', 'rejected', 'every-event'],
  quoteNegotiationWorkflow: ['countered-then-accepted', 'rejected-under-review', 'every-action'],
};

it('holds, in its newest release, a history of each path the issue names, and runs that continued as new', () => {
  const newest = readdirSync(CORPUS).sort().at(-1)!;
  const kept = (type: string) =>
    readdirSync(path.join(CORPUS, newest, type)).map((file) => file.replace(/^[a-z_]+?-/, '').replace(/(-\d+)?\.json$/, ''));
  for (const [type, paths] of Object.entries(PATHS))
    expect({ type, missing: paths.filter((p) => !kept(type).includes(p)) }).toEqual({ type, missing: [] });
  for (const type of ['companyOnboardingWorkflow', 'quoteNegotiationWorkflow']) {
    expect(readdirSync(path.join(CORPUS, newest, type)).some((file) => file.startsWith('continued_as_new-'))).toBe(true);
  }
});

it('every history replays against the current bundle', async () => {
  const report = await replayHistories(bundle, testDataConverter, corpus);
  // The whole report on failure: each failed history with its type, file and the SDK's error.
  expect(report.failures.length === 0 ? [] : formatReport(report)).toEqual([]);
  expect([...report.replayed.values()].reduce((a, b) => a + b, 0)).toBe(corpus.length);
});

it('a non-deterministic edit fails the replay, naming the history, its type and the first mismatching event', async () => {
  // fxFetchWorkflow with a timer moved in front of its activity (test/fixtures/nondeterministic-workflows.ts).
  const edited = await bundleProductionWorkflows(require.resolve('../fixtures/nondeterministic-workflows'));
  const fx = corpus.filter((h) => h.workflowType === 'fxFetchWorkflow');
  const housekeeping = corpus.filter((h) => h.workflowType === 'housekeepingWorkflow');
  expect(fx.length).toBeGreaterThan(0);
  const report = await replayHistories(edited, testDataConverter, [...fx, ...housekeeping]);
  // Only the edited workflow's histories fail; the others still replay.
  expect(report.failures.map((f) => [f.workflowType, f.name, f.errorName])).toEqual(
    fx.map((h) => ['fxFetchWorkflow', h.name, 'DeterminismViolationError']),
  );
  // The first event the edited code does not expect: the activity the old code scheduled where the timer now is.
  expect(report.failures[0].error).toMatch(/Nondeterminism error: .*HistoryEvent\(id: 5, ActivityTaskScheduled\)/);
  expect(formatReport(report)).toContain(`fxFetchWorkflow: ${fx.length} replayed, ${fx.length} failed`);
});
