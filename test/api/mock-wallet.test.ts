import request from 'supertest';
import type { z } from 'zod';
import type { CreateActivationResponse } from '../../src/activations/schemas';
import type { MobileWalletResult } from '../../src/payments/schemas';
import type { PaymentWorkflows, ProcessorEvent } from '../../src/temporal/payments';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeWorkflows, iccid, seedCatalog } from '../helpers/activations';
import { productionEnv } from '../helpers/production-env';
import { typed } from '../helpers/responses';

const delivered: Array<{ paymentId: string; event: ProcessorEvent }> = [];
const paymentWorkflows: PaymentWorkflows = {
  async startSettlement() {},
  deliverEvent(paymentId, event) {
    delivered.push({ paymentId, event });
    return Promise.resolve();
  },
};

let t: TestApp;
let production: TestApp;
beforeAll(async () => {
  const activationWorkflows = fakeWorkflows().workflows;
  t = await createTestApp({ deps: { activationWorkflows, paymentWorkflows } });
  // A complete production configuration: production refuses the mock provider itself, and the page is not served either.
  production = await createTestApp({
    env: productionEnv(),
    deps: { paymentWorkflows },
  });
  await seedCatalog(t.db);
});
afterAll(async () => {
  await t.close();
  await production.close();
});

describe('mock mobile-wallet redirect (development only)', () => {
  it('approves a processing mock mobile-wallet payment by handing settlement a succeeded event', async () => {
    const { token } = await signUp(t);
    const created = typed<z.infer<typeof CreateActivationResponse>>(
      await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter }).expect(201),
    );
    const pay = typed<z.infer<typeof MobileWalletResult>>(
      await request(t.app)
        .post('/payments/mobile-wallet')
        .set(bearer(token))
        .send({ orderId: created.body.orderId, mobileNumber: '0512345678', idempotencyKey: 'wallet-key-1' })
        .expect(201),
    );
    expect(pay.body.status).toBe('processing');
    const redirect = new URL(pay.body.redirectUrl);
    const page = await request(t.app).get(redirect.pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('approved');
    expect(delivered).toEqual([
      { paymentId: pay.body.paymentId, event: { eventId: `mock-wallet:${pay.body.paymentId}`, type: 'payment_intent.succeeded' } },
    ]);
  });

  it('answers NOT_FOUND for unknown payments, and does not exist in production', async () => {
    expect((await request(t.app).get('/mock-wallet/redirect/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await request(t.app).get('/mock-wallet/redirect/nope')).status).toBe(404);
    const res = await request(production.app).get('/mock-wallet/redirect/00000000-0000-4000-8000-000000000000');
    expect([res.status, errorCode(res)]).toEqual([404, 'NOT_FOUND']);
  });
});
