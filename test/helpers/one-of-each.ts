// An activation, a company registration and a quote draft created through their routes: one entity of
// each kind whose run the API starts (src/workflow-starts), for the tests of pending starts.
import request from 'supertest';
import { bearer, signUp, type TestApp } from './app';
import { DEMO, iccid } from './activations';
import { insertPackage } from './catalog';
import { registrationBody, signInAs } from './company-routes';
import { call, type DetailBody } from './quote-api';
import { rosterCaller } from './roster';

/** Each answered 201 (checked); the entities' ids, their workflow ids, and who created them. */
export async function createOneOfEach(t: TestApp) {
  const person = await signUp(t);
  const created = await request(t.app)
    .post('/activations')
    .set(bearer(person.token))
    .send({ iccid: iccid(), packageId: DEMO.packages.starter });
  const owner = await signInAs(t, 'b2b_admin');
  const registered = await request(t.app).post('/b2b/company').set(bearer(owner.token)).send(registrationBody());
  const admin = await rosterCaller(t);
  const packageId = await insertPackage(t.db);
  const quote = await call<DetailBody>(t, 'post', '/b2b/quotes', { token: admin.token, body: { items: [{ packageId, qty: 2 }] } });
  expect([created.status, registered.status, quote.status]).toEqual([201, 201, 201]);
  const activationId = (created.body as { activationId: string }).activationId;
  const companyId = (registered.body as { data: { company: { id: string } } }).data.company.id;
  const quoteId = quote.body.data.id;
  return {
    activationId,
    companyId,
    quoteId,
    workflowIds: [`activation:${activationId}`, `company:${companyId}`, `quote:${quoteId}`],
    person,
    owner,
    admin,
  };
}
