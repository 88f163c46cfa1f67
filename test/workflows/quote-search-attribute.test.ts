// A quote chain's run is found by its QuoteRef (the display ref `Q-…`) and by its company's CompanyId,
// as createQuoteRuns starts it. The Java time-skipping server has no visibility: this runs on the dev
// server, without a worker (only the start's search attributes are under test).
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createQuoteRuns } from '../../src/quotes/runs-temporal';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { quoteRef, quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { eventually } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { createLocalEnv, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(60_000);

let env: TestWorkflowEnvironment;
let db: TestDatabase;

beforeAll(async () => {
  [env, db] = await Promise.all([createLocalEnv({ server: { searchAttributes: Object.values(SEARCH_ATTRIBUTES) } }), createTestDatabase()]);
});
afterAll(async () => {
  await env?.teardown();
  await db?.drop();
});

async function runsWhere(query: string): Promise<{ workflowId: string; quoteRef?: string; companyId?: string }[]> {
  const found = [];
  for await (const run of env.client.workflow.list({ query })) {
    found.push({
      workflowId: run.workflowId,
      quoteRef: run.typedSearchAttributes.get(SEARCH_ATTRIBUTES.QuoteRef),
      companyId: run.typedSearchAttributes.get(SEARCH_ATTRIBUTES.CompanyId),
    });
  }
  return found;
}

it('finds a chain run by QuoteRef and all of a company’s chain runs by CompanyId', async () => {
  const runs = createQuoteRuns(
    env.client,
    { TEMPORAL_TASK_QUEUE: uniqueTaskQueue('quote-sa'), TEMPORAL_SEARCH_ATTRIBUTES: true },
    { db: db.sql },
  );
  const companyId = randomUUID();
  const chains = [randomUUID(), randomUUID()];
  for (const chainRootId of chains) {
    await runs.start({ chainRootId, companyId, tip: { versionId: chainRootId, version: 1, status: 'draft', companyAuthored: true } });
  }
  const ref = quoteRef(chains[0]);
  expect(ref).toMatch(/^Q-[0-9a-f]{12}$/);
  await eventually(async () => {
    expect(await runsWhere(`QuoteRef = "${ref}"`)).toEqual([{ workflowId: quoteWorkflowId(chains[0]), quoteRef: ref, companyId }]);
    expect((await runsWhere(`CompanyId = "${companyId}"`)).map((r) => r.workflowId).sort()).toEqual(chains.map(quoteWorkflowId).sort());
  }, 10_000);
  for (const chainRootId of chains) await env.client.workflow.getHandle(quoteWorkflowId(chainRootId)).terminate('test done');
});
