/**
 * The B2B half end to end on the running stack (the compiled API and worker as real processes, the
 * Temporal dev server, PostgreSQL): `npm run demo -- --b2b`'s walk, invite → register → approve →
 * quote → counter → accept → contract → payment → stage → send links → redeem → activate, then the
 * company's billing shows the charge and its dashboard the activation. Read back over HTTP by the walk,
 * and here from the rows and the runs: one charge, paid by the company, drawn once.
 */
import { runB2bDemo, type B2bDemoResult } from '../../src/cli/demo-b2b';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { eventually } from '../helpers/app';
import { DEMO } from '../helpers/activations';
import { match } from '../helpers/match';
import { compiledProcesses, freePort } from '../helpers/processes';
import { DIST, openStackFixture, type StackFixture } from '../helpers/stack';

jest.setTimeout(180_000);

const processes = compiledProcesses(DIST);
let stack: StackFixture;
let baseUrl: string;
let result: B2bDemoResult;
const lines: string[] = [];

beforeAll(async () => {
  stack = await openStackFixture('e2e-b2b');
  processes.start('worker/main.js', stack.common, 'worker');
  const port = await freePort();
  processes.start('src/main.js', { ...stack.common, PORT: String(port), HOST: '127.0.0.1' }, 'api');
  baseUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200), 30_000);
  result = await runB2bDemo({
    baseUrl,
    messagesFile: stack.messagesFile,
    databaseUrl: stack.databaseUrl,
    temporalUiUrl: 'http://ui.test',
    log: (line) => lines.push(line),
  });
});

afterAll(async () => {
  await processes.stopAll();
  await stack?.close();
});

it("walks from a super_admin's invitation to the staff member's activated SIM", () => {
  expect(result.status).toBe('activated');
  expect(lines.join('\n')).toMatch(/Done in [\d.]+s, \d+ requests: Sara Demo's SIM is activated and charged to the company/);
  // The printed links of the three runs.
  for (const id of [companyWorkflowId(result.companyId), quoteWorkflowId(result.chainRootId), activationWorkflowId(result.activationId)]) {
    expect(lines).toContainEqual(expect.stringContaining(`http://ui.test/namespaces/default/workflows/${encodeURIComponent(id)}`));
  }
});

it("shows the charge in the company's billing and the activation on its dashboard", async () => {
  const [order] = await stack.db.query<{ id: string; status: string; total: string; provider: string; payment_status: string }>(
    `select o.id, o.status, o.total_halalas::text as total, p.provider, p.status as payment_status
       from activations a join orders o on o.id = a.order_id join payments p on p.order_id = o.id
      where a.id = $1 and o.company_id = $2`,
    [result.activationId, result.companyId],
  );
  expect(order).toEqual({
    id: match.any(String),
    status: 'paid',
    total: '4200',
    provider: match.any(String),
    payment_status: 'completed',
  });

  expect(result.billing).toMatchObject({ mode: 'prepaid', outstandingSar: 42, linesDrawn: { consumed: 1, total: 3 } });
  expect(result.billing.charges).toEqual([
    { date: match.any(String), personName: 'Sara Demo', packageName: match.any(String), amountSar: 42, paymentId: match.any(String) },
  ]);
  expect(result.dashboard).toMatchObject({ hasLaunched: true, stats: { activated: 1, pending: 0, failed: 0 } });

  const [seat] = await stack.db.query<{ status: string; package_id: string }>(
    'select l.status, l.package_id from invitation_links l where l.roster_entry_id = $1',
    [result.rosterId],
  );
  expect(seat).toEqual({ status: 'used', package_id: DEMO.packages.starter });
});

it('leaves the company, quote and activation runs findable in the Temporal UI', async () => {
  const runs = async (query: string) => {
    const ids: string[] = [];
    for await (const run of stack.env.client.workflow.list({ query })) ids.push(run.workflowId);
    return ids.sort();
  };
  await eventually(async () => {
    // The seat's activation run carries its company too: one search shows the company's whole story.
    expect(await runs(`CompanyId = "${result.companyId}"`)).toEqual(
      [companyWorkflowId(result.companyId), quoteWorkflowId(result.chainRootId), activationWorkflowId(result.activationId)].sort(),
    );
    expect(await runs(`ActivationId = "${result.activationId}" AND ActivationStatus = "activated"`)).toEqual([
      activationWorkflowId(result.activationId),
    ]);
    // The corporate payment finds it too, as a consumer's payment finds its activation.
    expect(await runs(`PaymentId = "${result.billing.charges[0].paymentId}"`)).toEqual([activationWorkflowId(result.activationId)]);
  }, 15_000);
});
