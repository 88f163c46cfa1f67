import request from 'supertest';
import type { z } from 'zod';
import type { CreateActivationResponse } from '../../src/activations/schemas';
import type { MobileWalletResult } from '../../src/payments/schemas';
import type { PaymentRuns } from '../../src/payments/runs';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { DEMO, fakeActivationRuns, iccid, seedCatalog } from '../helpers/activations';
import { productionEnv } from '../helpers/production-env';
import { typed } from '../helpers/responses';
import { inboxRows } from '../helpers/webhooks';

// The page never talks to Temporal: a call here would fail the test.
const paymentRuns: PaymentRuns = {
  async startSettlement() {},
  deliverEvent: () => Promise.reject(new Error('the mock wallet page must go through the inbox')),
};

let t: TestApp;
let production: TestApp;
beforeAll(async () => {
  const activationRuns = fakeActivationRuns().runs;
  t = await createTestApp({ deps: { activationRuns, paymentRuns } });
  // A complete production configuration: production refuses the mock provider itself, and the page is not served either.
  production = await createTestApp({
    env: productionEnv(),
    deps: { paymentRuns },
  });
  await seedCatalog(t.db);
});
afterAll(async () => {
  await t.close();
  await production.close();
});

describe('mock mobile-wallet redirect (development only)', () => {
  it('approves a processing mock mobile-wallet payment by putting a succeeded event in the inbox, once however often it opens', async () => {
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
    for (let i = 0; i < 2; i++) {
      const page = await request(t.app).get(redirect.pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('approved');
    }
    expect(await inboxRows(t, pay.body.paymentId)).toEqual([
      expect.objectContaining({
        provider: 'mock',
        event_id: `mock-wallet:${pay.body.paymentId}`,
        type: 'payment_intent.succeeded',
        status: 'pending',
      }),
    ]);
  });

  it('declines with ?decision=declined: a failed event in the inbox, and the first decision stands', async () => {
    const { token } = await signUp(t);
    const created = typed<z.infer<typeof CreateActivationResponse>>(
      await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter }).expect(201),
    );
    const pay = typed<z.infer<typeof MobileWalletResult>>(
      await request(t.app)
        .post('/payments/mobile-wallet')
        .set(bearer(token))
        .send({ orderId: created.body.orderId, mobileNumber: '0512345679', idempotencyKey: 'wallet-key-2' })
        .expect(201),
    );
    const page = new URL(pay.body.redirectUrl).pathname;
    const declined = await request(t.app).get(`${page}?decision=declined`);
    expect([declined.status, declined.text.includes('declined')]).toEqual([200, true]);
    await request(t.app).get(page).expect(200);
    expect(await inboxRows(t, pay.body.paymentId)).toEqual([
      expect.objectContaining({
        provider: 'mock',
        event_id: `mock-wallet:${pay.body.paymentId}`,
        type: 'payment_intent.payment_failed',
        failure_message: 'mobile_wallet_declined',
      }),
    ]);
  });

  it('answers NOT_FOUND for unknown payments, and does not exist in production', async () => {
    expect((await request(t.app).get('/mock-wallet/redirect/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await request(t.app).get('/mock-wallet/redirect/nope')).status).toBe(404);
    const res = await request(production.app).get('/mock-wallet/redirect/00000000-0000-4000-8000-000000000000');
    expect([res.status, errorCode(res)]).toEqual([404, 'NOT_FOUND']);
  });
});
