import request from 'supertest';
import { bearer, createTestApp, type TestApp } from '../helpers/app';
import { post, readyCompany } from '../helpers/links-fixtures';
import { typed } from '../helpers/responses';

// Two admins minting for one company at once stay exact: 50 parallel single-entry exports (50
// different people) against a prepaid line of 10 seats mint exactly 10.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type ExportAnswer = { data: { entries: unknown[]; skipped: { code: string }[] } };

it('50 parallel mints for a line of 10 seats mint exactly 10', async () => {
  const c = await readyCompany(t, { people: 50, lines: [{ qty: 10, unitPriceHalalas: 8_000 }] });
  const answers = await Promise.all(
    c.rosterIds.map(async (id) =>
      typed<ExportAnswer>(await post(t, c.token, '/b2b/roster/links/export', { rosterIds: [id], contractItemId: c.itemIds[0] })),
    ),
  );
  expect(answers.every((a) => a.status === 200)).toBe(true);
  expect(answers.filter((a) => a.body.data.entries.length === 1)).toHaveLength(10);
  const skipped = answers.flatMap((a) => a.body.data.skipped.map((s) => s.code));
  expect(skipped).toEqual(Array.from({ length: 40 }, () => 'ACTIVATION_QUOTA_EXCEEDED'));
  const [{ n }] = await t.db.query<{ n: number }>(
    `select count(*)::int as n from invitation_links where contract_item_id = $1 and status = 'exported'`,
    [c.itemIds[0]],
  );
  expect(n).toBe(10);
  const contract = typed<{ data: { items: { consumedQty: number; remainingQty: number }[] } }>(
    await request(t.app).get('/b2b/contract').set(bearer(c.token)),
  );
  expect(contract.body.data.items[0]).toMatchObject({ consumedQty: 10, remainingQty: 0 });
});
