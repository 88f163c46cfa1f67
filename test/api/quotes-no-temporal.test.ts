import { createTestApp, errorCode, type TestApp } from '../helpers/app';
import { insertPackage } from '../helpers/catalog';
import { signInAs } from '../helpers/company-routes';
import { call } from '../helpers/quote-api';
import { insertQuoteVersion } from '../helpers/quote-runs';
import { rosterCaller } from '../helpers/roster';

// The app built without quote runs (AppDeps.quoteRuns absent): creating a quote keeps the draft and its
// run's pending start (for the worker's start relay), every action answers SERVICE_UNAVAILABLE, reads still work.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it('create answers 201 and keeps the draft; actions SERVICE_UNAVAILABLE; reads answer', async () => {
  const admin = await rosterCaller(t);
  const packageId = await insertPackage(t.db);
  const created = await call(t, 'post', '/b2b/quotes', { token: admin.token, body: { items: [{ packageId, qty: 1 }] } });
  expect(created.status).toBe(201);
  expect(await t.db.query('select status from quote_versions where company_id = $1', [admin.companyId])).toEqual([{ status: 'draft' }]);

  const draft = await insertQuoteVersion(t.db, { companyId: admin.companyId, items: [{ packageId, qty: 1 }] });
  const submitted = await insertQuoteVersion(t.db, { companyId: admin.companyId, status: 'submitted' });
  const submit = await call(t, 'post', `/b2b/quotes/${draft.id}/submit`, { token: admin.token });
  expect([submit.status, errorCode(submit)]).toEqual([503, 'SERVICE_UNAVAILABLE']);
  const staff = await signInAs(t, 'super_admin');
  const review = await call(t, 'post', `/admin/quotes/${submitted.id}/start-review`, { token: staff.token });
  expect([review.status, errorCode(review)]).toEqual([503, 'SERVICE_UNAVAILABLE']);
  expect((await call(t, 'get', `/b2b/quotes/${draft.id}`, { token: admin.token })).status).toBe(200);
});
