/**
 * Account deletion and the compliance routes (esim-store spec "Account deletion and compliance";
 * consumer spec: retainUntil / deletionRequestedAt / deletedAt, includeDeleted, Authentication rules 5
 * and 7, FORBIDDEN 401), against real Postgres, with fakes of the runs and of Temporal for the signals.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type * as s from '../../src/compliance/schemas';
import { createPersonalDataCipher, type PersonalDataCipher } from '../../src/lib/crypto';
import type { ActivationRuns } from '../../src/activations/runs';
import type { StoreOrderRuns } from '../../src/store/runs';
import { bearer, CONSENTS, errorCode, eventually, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { forgetOnErasure } from '../../src/compliance/forget';
import { DEMO, iccid, seedCatalog } from '../helpers/activations';
import { activateSeat, seatCompany, seatHolder, type SeatCompany } from '../helpers/company-seat';
import { signInAs, type Caller } from '../helpers/company-routes';
import { errorOf, typed } from '../helpers/responses';
import { createStoreApp, productId } from '../helpers/store';
import { insertActivation } from '../helpers/read-app';
import { createLogger } from '../../src/http/logger';
import { CANCEL_RUN, pendingSignal, type SignalSender } from '../../src/workflow-signals/kinds';
import { createSignalRelay } from '../../src/workflow-signals/relay';
import { enqueueSignal } from '../../src/workflow-signals/repository';

const DAY = 24 * 3600_000;

/** Temporal's fakes: the runs cancelled (through pending signals); while `away` nothing is taken, no start, no signal. */
const temporal = { away: false, cancelled: [] as string[] };
const taken = () => (temporal.away ? Promise.reject(new Error('Temporal unavailable')) : Promise.resolve());
const activationRuns: ActivationRuns = { start: taken };
const storeOrderRuns: StoreOrderRuns = { start: taken };
const signalSender: SignalSender = async ({ workflowId, signal }) => {
  await taken();
  if (signal === CANCEL_RUN) temporal.cancelled.push(workflowId);
  return 'signalled';
};

let t: TestApp;
let cipher: PersonalDataCipher;
let root: Caller;
beforeAll(async () => {
  t = await createStoreApp({ deps: { activationRuns, storeOrderRuns, signalSender } });
  await seedCatalog(t.db);
  cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
  root = await signInAs(t, 'super_admin');
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => {
  temporal.away = false;
  temporal.cancelled.length = 0;
});

type DeletionAnswer = z.infer<typeof s.DeletionRequestResponse>;
type RequestList = z.infer<typeof s.DeletionRequestList>;
type ExportDocument = z.infer<typeof s.UserExportDocument>;

const requestDeletion = async (token: string) =>
  typed<DeletionAnswer>(await request(t.app).post('/auth/me/deletion-request').set(bearer(token)));
const session = (token: string) => request(t.app).get('/auth/session').set(bearer(token));
const exportOf = (id: string, token = root.token, lang = 'en') =>
  request(t.app).get(`/admin/compliance/users/${id}/export`).set(bearer(token)).set('Accept-Language', lang);
const erase = (id: string, body: object = { reason: 'Court order 2026/114' }, token = root.token, lang = 'en') =>
  request(t.app).post(`/admin/compliance/users/${id}/erase`).set(bearer(token)).set('Accept-Language', lang).send(body);
const deletionRequests = async (query: Record<string, string> = {}, token = root.token) =>
  typed<RequestList>(await request(t.app).get('/admin/compliance/deletion-requests').query(query).set(bearer(token)));

/** A consumer activation through POST /activations (pending, its order unpaid). */
async function activate(token: string) {
  const res = await request(t.app).post('/activations').set(bearer(token)).send({ iccid: iccid(), packageId: DEMO.packages.starter });
  expect(res.status).toBe(201);
  const { activationId } = res.body as { activationId: string };
  const [{ orderId }] = await t.db.query<{ orderId: string }>('select order_id as "orderId" from activations where id = $1', [
    activationId,
  ]);
  return { activationId, orderId };
}

/** Pays an order with the mock card (completed at once): the payment id. */
async function pay(token: string, orderId: string): Promise<string> {
  const res = await request(t.app)
    .post('/payments/create-intent')
    .set(bearer(token))
    .send({ orderId, method: 'card_scheme_1', idempotencyKey: `key-${randomUUID()}` });
  expect([res.status, (res.body as { status: string }).status]).toEqual([201, 'completed']);
  return (res.body as { paymentId: string }).paymentId;
}

/** The activation as its run leaves it after a completed verification and the operator's activation. */
async function markActivated(activationId: string, idNumber: string) {
  await t.db.query(
    `update activations set status = 'activated', identity_status = 'completed', identity_type = 'citizen', identity_ref = $2,
            id_number_encrypted = $3, id_number_hash = $4, identity_verified_at = now(), activated_at = now() where id = $1`,
    [activationId, `TX-${activationId.slice(0, 8)}`, cipher.encrypt(idNumber), cipher.lookupHash(idNumber)],
  );
}

/** A store order through the routes: acknowledgement, order (unpaid). */
async function storeOrder(token: string, sku = 'MOCK-SYNC-SA-5GB') {
  const ack = await request(t.app)
    .post('/store/device-acknowledgements')
    .set(bearer(token))
    .send({ deviceModel: 'Pixel 9', esimCompatible: true, carrierUnlocked: true });
  expect(ack.status).toBe(201);
  const res = await request(t.app)
    .post('/store/orders')
    .set(bearer(token))
    .send({ productId: productId(sku), deviceAcknowledgementId: (ack.body as { data: { id: string } }).data.id });
  expect(res.status).toBe(201);
  return (res.body as { data: { id: string } }).data.id;
}

const row = async <T>(sql: string, values: unknown[]) => (await t.db.query<T & Record<string, unknown>>(sql, values))[0];
const refundRecords = (orderId: string) =>
  t.db.query<{ code: string; payment_id: string; resolved_at: Date | null }>(
    'select code, payment_id, resolved_at from reconciliation_records where order_id = $1',
    [orderId],
  );

describe('POST /auth/me/deletion-request', () => {
  it('answers 202 with deletionRequestedAt and retainUntil (+365 days); the token then answers AUTH_REQUIRED, and so does every other session', async () => {
    const person = await signUp(t);
    const second = await request(t.app).post('/auth/login').send({ phone: person.phone });
    expect(second.status).toBe(200);
    const other = await request(t.app)
      .post('/auth/verify-otp')
      .set(MOBILE)
      .send({ phone: person.phone, otp: lastCode(t, person.phone!) });
    const otherToken = (other.body as { session: { token: string } }).session.token;

    const res = await requestDeletion(person.token);
    expect(res.status).toBe(202);
    const now = t.clock();
    expect(res.body).toEqual({
      data: { deletionRequestedAt: now.toISOString(), retainUntil: new Date(now.getTime() + 365 * DAY).toISOString() },
    });
    for (const token of [person.token, otherToken]) {
      const after = await session(token);
      expect([after.status, errorCode(after)]).toEqual([401, 'AUTH_REQUIRED']);
    }
    const user = await row<{ is_active: boolean; phone_hash: string | null; deletion_requested_at: Date; retain_until: Date }>(
      'select is_active, phone_hash, deletion_requested_at, retain_until from users where id = $1',
      [person.userId],
    );
    expect(user).toMatchObject({ is_active: false, phone_hash: null, deletion_requested_at: now });
    const live = await row<{ n: number }>('select count(*)::int as n from sessions where user_id = $1 and revoked_at is null', [
      person.userId,
    ]);
    expect(live.n).toBe(0);
  });

  it('ends a web session and clears its cookie', async () => {
    const phone = newPhone();
    await request(t.app).post('/auth/register').send({ phone, name: 'Web Person', consents: CONSENTS });
    const signIn = await request(t.app)
      .post('/auth/verify-otp')
      .set('X-Client-Type', 'web')
      .send({ phone, otp: lastCode(t, phone) });
    const cookie = signIn.headers['set-cookie'] as unknown as string[];
    const res = await request(t.app).post('/auth/me/deletion-request').set('Cookie', cookie[0].split(';')[0]);
    expect(res.status).toBe(202);
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^activation-sys-session=; Max-Age=0/);
    const after = await request(t.app).get('/auth/session').set('Cookie', cookie[0].split(';')[0]);
    expect([after.status, errorCode(after)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('needs a session (AUTH_REQUIRED)', async () => {
    const res = await request(t.app).post('/auth/me/deletion-request');
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('releases the phone and e-mail: a login by them is AUTH_INVALID_OTP, and a new registration takes them the same day', async () => {
    const email = `leaver-${randomUUID()}@example.com`;
    const person = await signUp(t, { email, phone: newPhone(), name: 'Leaver' });
    expect((await requestDeletion(person.token)).status).toBe(202);
    for (const [body, lang, message] of [
      [{ phone: person.phone }, 'en', 'Invalid or expired code'],
      [{ email }, 'ar', undefined],
    ] as const) {
      const login = await request(t.app).post('/auth/login').set('Accept-Language', lang).send(body);
      expect([login.status, errorCode(login)]).toEqual([401, 'AUTH_INVALID_OTP']);
      if (message) expect(typeof errorOf(login).message).toBe('string');
    }
    const again = await signUp(t, { phone: person.phone, email, name: 'Returning' });
    expect(again.userId).not.toBe(person.userId);
    const me = await request(t.app).get('/auth/me').set(bearer(again.token));
    expect(me.body).toMatchObject({ phone: person.phone, email });
    // The retained copy is the old account's, encrypted, outside the identifier columns.
    const old = await row<{ retained_phone_encrypted: string; phone_encrypted: string | null }>(
      'select retained_phone_encrypted, phone_encrypted from users where id = $1',
      [person.userId],
    );
    expect(old.phone_encrypted).toBeNull();
    expect(cipher.decrypt(old.retained_phone_encrypted)).toBe(person.phone);
  });

  it('refuses sign-in to the deleted account with AUTH_ACCOUNT_DEACTIVATED (a code sent before; a company link), in both languages', async () => {
    const person = await signUp(t);
    await request(t.app).post('/auth/login').send({ phone: person.phone });
    const code = lastCode(t, person.phone!);
    const company = await seatCompany(t, { mode: 'prepaid' });
    const token = randomBytes(32).toString('base64url');
    await t.db.query(
      `insert into invitation_links (token_hash, user_id, company_id, package_id, status, expires_at, created_at, updated_at)
       values ($1, $2, $3, $4, 'sent', now() + interval '1 day', now(), now())`,
      [createHash('sha256').update(token).digest('hex'), person.userId, company.companyId, company.packageId],
    );
    expect((await requestDeletion(person.token)).status).toBe(202);
    const verify = await request(t.app).post('/auth/verify-otp').set(MOBILE).send({ phone: person.phone, otp: code });
    expect([verify.status, errorCode(verify), errorOf(verify).message]).toEqual([
      401,
      'AUTH_ACCOUNT_DEACTIVATED',
      'This account has been deactivated',
    ]);
    const link = await request(t.app).post('/auth/magic-link').set(MOBILE).set('Accept-Language', 'ar').send({ token });
    expect([link.status, errorCode(link), errorOf(link).message]).toEqual([401, 'AUTH_ACCOUNT_DEACTIVATED', 'تم إيقاف هذا الحساب']);
  });

  it('cancels pending activations (their runs too), expires unpaid store orders and fails paid ones not issued; stamps every activation; keeps what was delivered', async () => {
    const person = await signUp(t);
    const pending = await activate(person.token);
    const done = await activate(person.token);
    await pay(person.token, done.orderId);
    await markActivated(done.activationId, '1098765432');
    const unpaid = await storeOrder(person.token);
    const paid = await storeOrder(person.token, 'MOCK-SYNC-AE-1GB');
    const paymentId = await pay(person.token, paid);

    const res = await requestDeletion(person.token);
    expect(res.status).toBe(202);
    const { deletionRequestedAt, retainUntil } = res.body.data;
    const activations = await t.db.query<{ id: string; status: string; failed_reason: string | null; drt: Date; ru: Date }>(
      `select id, status, failed_reason, deletion_requested_at as drt, retain_until as ru from activations where user_id = $1`,
      [person.userId],
    );
    const byId = Object.fromEntries(activations.map((a) => [a.id, a]));
    expect(byId[pending.activationId]).toMatchObject({ status: 'cancelled', failed_reason: 'ACCOUNT_DELETED' });
    expect(byId[done.activationId]).toMatchObject({ status: 'activated' });
    for (const a of activations) expect([a.drt.toISOString(), a.ru.toISOString()]).toEqual([deletionRequestedAt, retainUntil]);
    const orders = await t.db.query<{ id: string; status: string }>('select id, status from orders where id = any($1::uuid[])', [
      [pending.orderId, done.orderId, unpaid, paid],
    ]);
    expect(Object.fromEntries(orders.map((o) => [o.id, o.status]))).toEqual({
      [pending.orderId]: 'cancelled',
      [done.orderId]: 'paid',
      [unpaid]: 'cancelled',
      [paid]: 'paid',
    });
    const store = await t.db.query<{ id: string; status: string; failure_reason: string | null }>(
      'select id, status, failure_reason from store_orders where user_id = $1',
      [person.userId],
    );
    expect(Object.fromEntries(store.map((o) => [o.id, [o.status, o.failure_reason]]))).toEqual({
      [unpaid]: ['expired', 'ACCOUNT_DELETED'],
      [paid]: ['failed', 'ACCOUNT_DELETED'],
    });
    // The paid order's money is due back: its refund record, written with the failure.
    expect(await refundRecords(paid)).toEqual([{ code: 'PAYMENT_REFUND_REQUIRED', payment_id: paymentId, resolved_at: null }]);
    expect(temporal.cancelled.sort()).toEqual(
      [`activation:${pending.activationId}`, `store-order:${unpaid}`, `store-order:${paid}`].sort(),
    );
    const audit = await row<{ details: Record<string, unknown>; actor_user_id: string }>(
      `select details, actor_user_id from audit_events where action = 'account.deletion_requested' and entity_id = $1`,
      [person.userId],
    );
    expect(audit).toEqual({
      actor_user_id: person.userId,
      details: { retainUntil, revokedSessions: 1, cancelledActivations: 1, expiredStoreOrders: 1, failedStoreOrders: 1 },
    });
  });

  it('fails every paid store order without a profile (paid, provisioning, awaiting_provider) with its refund record; an issued or failed one stays as it was', async () => {
    const person = await signUp(t);
    const ids: Record<string, string> = {};
    for (const state of ['paid', 'provisioning', 'awaiting_provider', 'issued', 'failed']) {
      ids[state] = await storeOrder(person.token, 'MOCK-SYNC-AE-1GB');
      await pay(person.token, ids[state]);
      if (state !== 'paid') await t.db.query('update store_orders set status = $2 where id = $1', [ids[state], state]);
    }
    const res = await requestDeletion(person.token);
    expect(res.status).toBe(202);
    const store = await t.db.query<{ id: string; status: string; failure_reason: string | null }>(
      'select id, status, failure_reason from store_orders where user_id = $1',
      [person.userId],
    );
    expect(Object.fromEntries(store.map((o) => [o.id, [o.status, o.failure_reason]]))).toEqual({
      [ids.paid]: ['failed', 'ACCOUNT_DELETED'],
      [ids.provisioning]: ['failed', 'ACCOUNT_DELETED'],
      [ids.awaiting_provider]: ['failed', 'ACCOUNT_DELETED'],
      [ids.issued]: ['issued', null],
      [ids.failed]: ['failed', null],
    });
    for (const state of ['paid', 'provisioning', 'awaiting_provider'])
      expect((await refundRecords(ids[state])).map((r) => r.code)).toEqual(['PAYMENT_REFUND_REQUIRED']);
    expect(await refundRecords(ids.issued)).toEqual([]);
    expect(temporal.cancelled.sort()).toEqual(
      ['paid', 'provisioning', 'awaiting_provider'].map((state) => `store-order:${ids[state]}`).sort(),
    );
  });

  it('with Temporal away answers the same: the runs’ cancellations wait as pending rows, which the signal relay sends once it answers', async () => {
    const person = await signUp(t);
    const started = await activate(person.token);
    const unpaid = await storeOrder(person.token);
    // A run whose start is still pending (Temporal took none): the deletion drops the start, so it never runs.
    temporal.away = true;
    const unstarted = await activate(person.token);
    expect(
      await t.db.query('select workflow_id from workflow_starts where workflow_id = $1 and started_at is null', [
        `activation:${unstarted.activationId}`,
      ]),
    ).toHaveLength(1);
    const ended = [started.activationId, unstarted.activationId].map((id) => `activation:${id}`).concat(`store-order:${unpaid}`);
    // A signal the started run was still owed: nothing is left for it to hear (dropped), but its cancellation stays.
    await t.db.sql.transaction((tx) =>
      enqueueSignal(tx, pendingSignal.identityStarted(started.activationId, { transId: 'tx-1', attempt: 1 })),
    );

    const res = await requestDeletion(person.token);
    expect(res.status).toBe(202);
    const signals = () =>
      t.db.query<{ workflow_id: string; signal: string; outcome: string | null }>(
        'select workflow_id, signal, outcome from workflow_signals where workflow_id = any($1::text[]) order by workflow_id',
        [ended],
      );
    expect(await signals()).toEqual(
      [...ended].sort().map((workflowId) => ({ workflow_id: workflowId, signal: CANCEL_RUN, outcome: null })),
    );
    expect(await t.db.query('select workflow_id from workflow_starts where workflow_id = any($1::text[])', [ended])).toEqual([]);
    expect(temporal.cancelled).toEqual([]);

    temporal.away = false;
    const relay = createSignalRelay({
      db: t.db.sql,
      send: signalSender,
      logger: createLogger('silent'),
      batchSize: 50,
      pollIntervalMs: 60_000,
      maxBackoffMs: 1_000,
    });
    await relay.drain();
    expect(temporal.cancelled.sort()).toEqual([...ended].sort());
    expect((await signals()).map((s) => s.outcome)).toEqual(['signalled', 'signalled', 'signalled']);
  });

  it.each([['prepaid'], ['flexible']] as const)(
    'frees nothing a %s company seat drew: the activated seat, its link and entry stay, the company draws the same',
    async (mode) => {
      const company = await seatCompany(t, { mode });
      const holder = await seatHolder(t, company);
      const seat = await activateSeat(t, holder.token, { packageId: company.packageId });
      expect(seat.status).toBe(201);
      await markActivated((seat.body as { activationId: string }).activationId, '1011122233');
      // What the company sees of its money: the contract's drawn lines, the billing totals and lines, the dashboard.
      const portal = async () => {
        const answers = await Promise.all(
          ['/b2b/contract', '/b2b/billing', '/b2b/dashboard'].map((path) => request(t.app).get(path).set(bearer(company.adminToken))),
        );
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
        const [contract, billing, dashboard] = answers.map((a) => a.body as { data: Record<string, unknown> });
        // Charges and activity name the person, whom the erasure removes; amounts, counts and times stay.
        const unnamed = (rows: unknown) =>
          (rows as Array<Record<string, unknown>>).map((row) =>
            Object.fromEntries(Object.entries(row).filter(([key]) => key !== 'personName')),
          );
        return {
          contract,
          billing: { ...billing.data, charges: unnamed(billing.data.charges) },
          dashboard: { ...dashboard.data, activity: unnamed(dashboard.data.activity) },
        };
      };
      const before = await portal();
      expect(JSON.stringify(before.billing)).toContain('80');
      expect((await requestDeletion(holder.token)).status).toBe(202);
      expect(await portal()).toEqual(before);
      const link = await row<{ status: string }>('select status from invitation_links where user_id = $1', [holder.userId]);
      expect(link.status).toBe('used');
      expect((await erase(holder.userId)).status).toBe(200);
      expect(await portal()).toEqual(before);
    },
  );
});

describe('compliance routes: super_admin only', () => {
  it.each([['end_user'], ['admin'], ['support'], ['b2b_admin']] as const)(
    'answers a signed-in %s FORBIDDEN with status 401, in both languages',
    async (role) => {
      const caller = await signInAs(t, role, role === 'admin' ? { view: ['b2b', 'store'], manage: ['b2b', 'store'] } : {});
      const target = root.userId;
      const calls = [
        () => request(t.app).get('/admin/compliance/deletion-requests').set(bearer(caller.token)),
        () => exportOf(target, caller.token, 'ar'),
        () => erase(target, { reason: 'x' }, caller.token),
      ];
      for (const [i, call] of calls.entries()) {
        const res = await call();
        expect([res.status, errorCode(res), errorOf(res).message]).toEqual([401, 'FORBIDDEN', i === 1 ? 'تم رفض الوصول' : 'Access denied']);
      }
      // Nothing happened to the target.
      const user = await row<{ erased_at: Date | null }>('select erased_at from users where id = $1', [target]);
      expect(user.erased_at).toBeNull();
    },
  );

  it('answers AUTH_REQUIRED without a session', async () => {
    const res = await request(t.app).get('/admin/compliance/deletion-requests');
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});

describe('GET /admin/compliance/deletion-requests', () => {
  it('lists the requests newest first with { userId, deletionRequestedAt, retainUntil, erasedAt }, paged with total', async () => {
    const people = [];
    for (let i = 0; i < 3; i++) {
      const person = await signUp(t);
      t.clock.advance(1000);
      await requestDeletion(person.token);
      people.push({ ...person, at: t.clock() });
    }
    const all = await deletionRequests({ limit: '100' });
    expect(all.status).toBe(200);
    const total = all.body.data.total;
    expect(all.body.data.requests.length).toBe(total);
    const first = await deletionRequests({ page: '1', limit: '2' });
    expect(first.body.data).toMatchObject({ total, page: 1, limit: 2 });
    expect(first.body.data.requests.map((r) => r.userId)).toEqual([people[2].userId, people[1].userId]);
    expect(first.body.data.requests[0]).toEqual({
      userId: people[2].userId,
      deletionRequestedAt: people[2].at.toISOString(),
      retainUntil: new Date(people[2].at.getTime() + 365 * DAY).toISOString(),
      erasedAt: null,
    });
    const erased = await erase(people[2].userId);
    const again = await deletionRequests({ page: '1', limit: '1' });
    expect(again.body.data.requests[0].erasedAt).toBe((erased.body as { data: { erasedAt: string } }).data.erasedAt);
  });

  it.each([[{ page: '0' }], [{ limit: '101' }], [{ limit: 'x' }], [{ other: '1' }]])('refuses %j (VALIDATION_ERROR)', async (query) => {
    const res = await deletionRequests(query);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

/** Someone who used every part: a consumer activation (paid, activated), a store order (paid, issued), a company seat. */
async function everyPartPerson(name: string, idNumber: string) {
  const email = `every-${randomUUID()}@example.com`;
  const person = await signUp(t, { phone: newPhone(), email, name });
  const consumer = await activate(person.token);
  const paymentId = await pay(person.token, consumer.orderId);
  await markActivated(consumer.activationId, idNumber);
  const storeOrderId = await storeOrder(person.token);
  const storePaymentId = await pay(person.token, storeOrderId);
  const profile = {
    iccid: '8997100000000000001',
    smdpAddress: 'smdp.example.com',
    matchingId: 'M-1',
    activationCodeRaw: 'LPA:1$smdp.example.com$M-1',
  };
  await t.db.query(`update store_orders set status = 'issued', profile_encrypted = $2, issued_at = now() where id = $1`, [
    storeOrderId,
    cipher.encrypt(JSON.stringify(profile)),
  ]);
  const company: SeatCompany = await seatCompany(t, { mode: 'prepaid' });
  const [{ id: rosterEntryId }] = await t.db.query<{ id: string }>(
    `insert into roster_entries (company_id, user_id, status, nationality, package_id, contract_item_id, created_at, updated_at)
     values ($1, $2, 'enabled', 'Saudi', $3, $4, now(), now()) returning id`,
    [company.companyId, person.userId, company.packageId, company.itemId],
  );
  const [{ id: linkId }] = await t.db.query<{ id: string }>(
    `insert into invitation_links (token_hash, user_id, company_id, roster_entry_id, contract_item_id, package_id, status, channel, expires_at, used_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, 'used', 'sms', now() + interval '1 day', now(), now(), now()) returning id`,
    [randomBytes(32).toString('hex'), person.userId, company.companyId, rosterEntryId, company.itemId, company.packageId],
  );
  // The seat's SIM, as the company branch of POST /activations leaves it once the run activated it.
  const seat = await insertActivation(t, {
    userId: person.userId,
    packageId: company.packageId,
    operatorId: DEMO.operators.mock,
    status: 'activated',
    identityStatus: 'completed',
    activatedAt: new Date().toISOString(),
    order: { status: 'paid', companyId: company.companyId, totalAmountSar: '80.00' },
    orderItem: { unitPriceSar: '80.00' },
  });
  return {
    ...person,
    email,
    name,
    idNumber,
    consumer,
    paymentId,
    storeOrderId,
    storePaymentId,
    profile,
    company,
    rosterEntryId,
    linkId,
    seat,
  };
}

describe('GET /admin/compliance/users/:id/export', () => {
  it('sends the whole record of one person as user-<id>.json, decrypted, checked field by field, and audits it', async () => {
    const p = await everyPartPerson('Zubaida Qutbi', '1122334455');
    const res = typed<ExportDocument>(await exportOf(p.userId));
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename=user-${p.userId}.json`);
    const doc = res.body;
    expect(doc.userId).toBe(p.userId);
    expect(doc.exportedAt).toBe(t.clock().toISOString());
    const iso = (d: Date | null) => (d ? d.toISOString() : null);
    const user = await row<{ created_at: Date; updated_at: Date; verified_at: Date }>(
      'select created_at, updated_at, verified_at from users where id = $1',
      [p.userId],
    );
    expect(doc.profile).toEqual({
      id: p.userId,
      name: 'Zubaida Qutbi',
      phone: p.phone,
      email: p.email,
      phoneProven: true,
      emailProven: true,
      pendingPhone: null,
      pendingEmail: null,
      appRole: 'end_user',
      identityType: 'citizen',
      isActive: true,
      blocklistedAt: null,
      verifiedAt: iso(user.verified_at),
      managedAreas: null,
      managedAreasWrite: null,
      createdAt: iso(user.created_at),
      updatedAt: iso(user.updated_at),
      deletionRequestedAt: null,
      retainUntil: null,
      erasedAt: null,
    });
    expect(doc.consents.map((c) => [c.type, c.version]).sort()).toEqual(CONSENTS.map((c) => [c.type, c.version]).sort());

    // Activations: every column of the stored rows, the id number decrypted.
    const stored = await t.db.query<Record<string, unknown>>('select * from activations where user_id = $1 order by created_at, id', [
      p.userId,
    ]);
    expect(doc.activations).toEqual(
      stored.map((a) => ({
        id: a.id,
        orderId: a.order_id,
        orderItemId: a.order_item_id,
        operatorId: a.operator_id,
        packageId: a.package_id,
        iccid: a.iccid,
        simType: a.sim_type,
        esimProfile: a.esim_profile,
        status: 'activated',
        identityStatus: 'completed',
        identityRef: a.identity_ref,
        identityType: a.identity_type,
        idNumber: a.id === p.consumer.activationId ? '1122334455' : null,
        identityVerifiedAt: iso(a.identity_verified_at as Date | null),
        activatedAt: iso(a.activated_at as Date),
        failedReason: null,
        retainUntil: null,
        deletionRequestedAt: null,
        deletedAt: null,
        createdAt: iso(a.created_at as Date),
        updatedAt: iso(a.updated_at as Date),
      })),
    );
    expect(doc.activations.map((a) => a.id).sort()).toEqual([p.consumer.activationId, p.seat.activationId].sort());

    // Orders: the consumer's (SAR), the store's (USD) and the seat's (the company's), each with its items.
    const orderOf = (id: string) => doc.orders.find((o) => o.id === id)!;
    expect(doc.orders).toHaveLength(3);
    expect(orderOf(p.consumer.orderId)).toMatchObject({ companyId: null, status: 'paid', total: { amount: '49.00', currency: 'SAR' } });
    expect(orderOf(p.consumer.orderId).items).toEqual([
      {
        id: expect.any(String) as string,
        packageId: DEMO.packages.starter,
        iccid: doc.activations.find((a) => a.id === p.consumer.activationId)!.iccid,
        quantity: 1,
        unitPrice: { amount: '49.00', currency: 'SAR' },
      },
    ]);
    expect(orderOf(p.storeOrderId)).toMatchObject({ companyId: null, status: 'paid', total: { amount: '12.00', currency: 'USD' } });
    expect(orderOf(p.seat.orderId)).toMatchObject({
      companyId: p.company.companyId,
      status: 'paid',
      total: { amount: '80.00', currency: 'SAR' },
      items: [
        expect.objectContaining({
          id: p.seat.orderItemId,
          packageId: p.company.packageId,
          iccid: p.seat.iccid,
          unitPrice: { amount: '80.00', currency: 'SAR' },
        }),
      ],
    });

    // Payments: both of the person's, with their receipts.
    const payments = await t.db.query<Record<string, unknown>>('select * from payments where user_id = $1', [p.userId]);
    expect(doc.payments.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      payments
        .map((x) => ({
          id: x.id,
          orderId: x.order_id,
          method: 'card_scheme_1',
          provider: 'mock',
          status: 'completed',
          amount: x.order_id === p.storeOrderId ? { amount: '12.00', currency: 'USD' } : { amount: '49.00', currency: 'SAR' },
          gatewayTransactionId: x.gateway_transaction_id,
          receiptNumber: expect.stringMatching(/\S/) as unknown,
          failureReason: null,
          paidAt: iso(x.paid_at as Date),
          createdAt: iso(x.created_at as Date),
          updatedAt: iso(x.updated_at as Date),
        }))
        .sort((a, b) => String(a.id).localeCompare(String(b.id))),
    );

    // The store order: the product as ordered, the money, the issued profile decrypted.
    const storeRow = await row<Record<string, unknown>>('select * from store_orders where id = $1', [p.storeOrderId]);
    expect(doc.storeOrders).toEqual([
      {
        id: p.storeOrderId,
        sku: 'MOCK-SYNC-SA-5GB',
        status: 'issued',
        product: storeRow.product_snapshot,
        charge: { amount: '12.00', currency: 'USD' },
        display: { amount: '12.00', currency: 'USD' },
        paymentId: p.storePaymentId,
        deviceModel: 'Pixel 9',
        profile: p.profile,
        failureReason: null,
        deliverBy: iso(storeRow.deliver_by as Date | null),
        createdAt: iso(storeRow.created_at as Date),
        updatedAt: iso(storeRow.updated_at as Date),
        issuedAt: iso(storeRow.issued_at as Date),
      },
    ]);
    expect(doc.storeOrders[0].product).toMatchObject({ nameEn: expect.any(String) as string, countries: ['SA'] });
    expect(doc.deviceAcknowledgements).toEqual([
      { id: expect.any(String) as string, deviceModel: 'Pixel 9', acknowledgedAt: expect.any(String) as string },
    ]);

    // The company seat: the roster entry and its link.
    const entry = await row<{ created_at: Date; updated_at: Date }>('select created_at, updated_at from roster_entries where id = $1', [
      p.rosterEntryId,
    ]);
    const link = await row<{ expires_at: Date; used_at: Date; created_at: Date }>(
      'select expires_at, used_at, created_at from invitation_links where id = $1',
      [p.linkId],
    );
    const company = await row<{ name: string }>('select name from companies where id = $1', [p.company.companyId]);
    expect(doc.rosterMemberships).toEqual([
      {
        rosterEntryId: p.rosterEntryId,
        companyId: p.company.companyId,
        companyName: company.name,
        status: 'enabled',
        nationality: 'Saudi',
        packageId: p.company.packageId,
        links: [
          {
            id: p.linkId,
            status: 'used',
            channel: 'sms',
            expiresAt: iso(link.expires_at),
            usedAt: iso(link.used_at),
            createdAt: iso(link.created_at),
          },
        ],
        createdAt: iso(entry.created_at),
        updatedAt: iso(entry.updated_at),
      },
    ]);
    expect(doc.companyMemberships).toEqual([]);
    expect(doc.sessions.length).toBeGreaterThanOrEqual(2);
    expect(doc.sessions.every((x) => x.clientType === 'mobile' && x.revokedAt === null)).toBe(true);
    // No credential travels: no token, hash or ciphertext anywhere in the document.
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/v1\.[\w-]+\.[\w-]+\./);
    expect(text).not.toContain(cipher.lookupHash(p.phone!));
    const audit = await row<{ actor_user_id: string; details: Record<string, number> }>(
      `select actor_user_id, details from audit_events where action = 'compliance.user_exported' and entity_id = $1`,
      [p.userId],
    );
    expect(audit.actor_user_id).toBe(root.userId);
    expect(audit.details).toMatchObject({ activations: 2, orders: 3, storeOrders: 1, roster: 1, payments: 2 });
  });

  it('exports a deleted account with its retained phone and e-mail', async () => {
    const email = `kept-${randomUUID()}@example.com`;
    const person = await signUp(t, { phone: newPhone(), email });
    await requestDeletion(person.token);
    const res = typed<ExportDocument>(await exportOf(person.userId));
    expect(res.body.profile).toMatchObject({ phone: person.phone, email, isActive: false, deletionRequestedAt: t.clock().toISOString() });
  });

  it('answers NOT_FOUND for an unknown user, in both languages', async () => {
    for (const [id, lang, message] of [
      [randomUUID(), 'en', 'The requested item was not found'],
      ['not-a-uuid', 'ar', 'العنصر المطلوب غير موجود'],
    ]) {
      const res = await exportOf(id, root.token, lang);
      expect([res.status, errorCode(res), errorOf(res).message]).toEqual([404, 'NOT_FOUND', message]);
    }
  });
});

describe('POST /admin/compliance/users/:id/erase', () => {
  it('refuses a missing, empty or over-500-character reason (VALIDATION_ERROR) and an unknown user (NOT_FOUND)', async () => {
    const person = await signUp(t);
    for (const body of [{}, { reason: '' }, { reason: 'x'.repeat(501) }, { reason: 'ok', extra: 1 }]) {
      const res = await erase(person.userId, body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const ar = await erase(person.userId, {}, root.token, 'ar');
    expect(errorOf(ar).message).not.toBe(errorOf(await erase(person.userId, {})).message);
    const unknown = await erase(randomUUID(), { reason: 'x'.repeat(500) }, root.token, 'ar');
    expect([unknown.status, errorCode(unknown), errorOf(unknown).message]).toEqual([404, 'NOT_FOUND', 'العنصر المطلوب غير موجود']);
    const user = await row<{ erased_at: Date | null; is_active: boolean }>('select erased_at, is_active from users where id = $1', [
      person.userId,
    ]);
    expect(user).toEqual({ erased_at: null, is_active: true });
  });

  it('erases every trace of the person in every table (clear or keyed hash); the money sums stay; audited without the values', async () => {
    const p = await everyPartPerson('Hessa Almutlaq', '1098123456');
    // The person also holds a pending claim and a login code, and acted in the audit trail.
    await t.db.query('update audit_events set ip = $2, user_agent = $3 where actor_user_id = $1', [p.userId, '203.0.113.9', 'Agent/1']);
    await request(t.app).post('/auth/login').send({ phone: p.phone });
    const money = async () =>
      row<Record<string, string>>(
        `select (select coalesce(sum(total_halalas), 0) from orders)::text as orders,
                (select coalesce(sum(amount_minor), 0) from payments)::text as payments,
                (select coalesce(sum(charge_usd_cents), 0) from store_orders)::text as store,
                (select count(*) from reconciliation_records)::text as reconciliation,
                (select count(*) from orders)::text as order_rows, (select count(*) from payments)::text as payment_rows`,
        [],
      );
    const before = await money();
    const res = await erase(p.userId, { reason: 'Court order 2026/114' });
    expect(res.status).toBe(200);
    const erasedAt = t.clock().toISOString();
    expect(res.body).toEqual({ data: { erasedAt } });

    const needles = [p.phone!, p.phone!.slice(1), p.email, p.name, p.idNumber];
    const hashes = [p.phone!, p.email, p.idNumber].map((v) => cipher.lookupHash(v));
    const tables = await t.db.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      [],
    );
    expect(tables.length).toBeGreaterThan(30);
    const found: string[] = [];
    for (const { name } of tables) {
      const rows = await t.db.query<{ line: string }>(`select t::text as line from "${name}" t`, []);
      for (const { line } of rows) {
        for (const needle of [...needles, ...hashes])
          if (line.toLowerCase().includes(needle.toLowerCase())) found.push(`${name}: ${needle}`);
        // Ciphertexts too: every one left must belong to someone else.
        for (const stored of line.match(/v1\.[\w-]+\.[\w-]+\.[\w-]*/g) ?? []) {
          let clear = '';
          try {
            clear = cipher.decrypt(stored);
          } catch {
            continue;
          }
          if (needles.some((n) => clear.includes(n))) found.push(`${name}: encrypted ${clear}`);
        }
      }
    }
    expect(found).toEqual([]);
    expect(await money()).toEqual(before);

    const user = await row<{ name: string; is_active: boolean; erased_at: Date }>(
      'select name, is_active, erased_at from users where id = $1',
      [p.userId],
    );
    expect(user).toEqual({ name: '', is_active: false, erased_at: new Date(erasedAt) });
    const activation = await row<{ deleted_at: Date; status: string }>('select deleted_at, status from activations where id = $1', [
      p.consumer.activationId,
    ]);
    expect(activation).toEqual({ deleted_at: new Date(erasedAt), status: 'activated' });
    const audit = await row<{ actor_user_id: string; details: Record<string, unknown> }>(
      `select actor_user_id, details from audit_events where action = 'compliance.user_erased' and entity_id = $1`,
      [p.userId],
    );
    expect(audit.actor_user_id).toBe(root.userId);
    expect(audit.details).toMatchObject({ trigger: 'admin', reason: 'Court order 2026/114', erasedActivations: 2 });
    // The account was not deleted before: the erasure deleted it first.
    expect(audit.details).toMatchObject({ revokedSessions: 2, cancelledActivations: 0 });

    // The export still answers, without personal data.
    const doc = typed<ExportDocument>(await exportOf(p.userId)).body;
    expect(doc.profile).toMatchObject({ name: '', phone: null, email: null, erasedAt });
    expect(doc.activations.map((a) => [a.idNumber, a.deletedAt])).toEqual([
      [null, erasedAt],
      [null, erasedAt],
    ]);

    // Erasing again changes nothing and answers the same erasedAt.
    t.clock.advance(60_000);
    const again = await erase(p.userId);
    expect(again.body).toEqual({ data: { erasedAt } });
    const audits = await row<{ n: number }>(
      `select count(*)::int as n from audit_events where action = 'compliance.user_erased' and entity_id = $1`,
      [p.userId],
    );
    expect(audits.n).toBe(1);
  });
});

// Issue 33: "The erasure removes details.name from audit rows but not the names under before/after of admin_user.renamed."
describe('an erasure and the audit trail of a staff account', () => {
  it('leaves none of the names the account ever had: the rename rows stay, without before/after', async () => {
    const [first, second, third] = ['Nouf Alharbi', 'Nouf Alharbi-Saleh', 'Nouf Saleh'];
    const created = await request(t.app)
      .post('/admin/users')
      .set(bearer(root.token))
      .send({ appRole: 'support', name: first, email: `renamed-${randomUUID()}@example.com` });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    for (const name of [second, third]) {
      t.clock.advance(1000); // the trail's order is its rows' time
      const renamed = await request(t.app).patch(`/admin/users/${id}`).set(bearer(root.token)).send({ name });
      expect(renamed.status).toBe(200);
    }
    const trail = () =>
      t.db.query<{ action: string; details: Record<string, unknown> }>(
        `select action, details from audit_events where entity_type = 'user' and entity_id = $1 order by created_at, action`,
        [id],
      );
    expect((await trail()).filter((r) => r.action === 'admin_user.renamed').map((r) => r.details)).toEqual([
      { before: first, after: second },
      { before: second, after: third },
    ]);

    expect((await erase(id)).status).toBe(200);
    const after = await trail();
    expect(after.filter((r) => r.action === 'admin_user.renamed').map((r) => r.details)).toEqual([{}, {}]);
    // No name anywhere in the person's rows, whatever the action.
    expect(after.filter((r) => /Nouf|Alharbi|Saleh/.test(JSON.stringify(r.details)))).toEqual([]);
  });
});

describe('an erasure reaches every process (issue 32)', () => {
  it('deletes the person’s messages still waiting for the relay, and makes another process forget the values it decrypted', async () => {
    const person = await signUp(t, { phone: newPhone(), email: `waiting-${randomBytes(3).toString('hex')}@example.com` });
    const other = await signUp(t);
    const pending = (to: string) =>
      t.db.query(
        `insert into message_outbox (channel, purpose, payload_encrypted, recipient_hash, next_attempt_at, expires_at)
         values ('sms', 'otp.login', $1, $2, now(), now() + interval '5 minutes')`,
        [cipher.encrypt(JSON.stringify({ to })), cipher.lookupHash(to)],
      );
    await pending(person.phone!);
    await pending(person.email!);
    await pending(other.phone!);
    // Another process (a replica, the worker): its own cipher, its own listener.
    const elsewhere = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    const forgot = jest.spyOn(elsewhere, 'forgetAll');
    const listener = forgetOnErasure({ pool: t.db.pool, cipher: elsewhere, logger: { warn: () => undefined } });
    try {
      await eventually(() => expect(listener.listening).toBe(true), 5_000);
      const before = forgot.mock.calls.length;
      expect((await erase(person.userId)).status).toBe(200);
      await eventually(() => expect(forgot.mock.calls.length).toBeGreaterThan(before), 5_000);
    } finally {
      await listener.stop();
    }
    const left = await t.db.query<{ recipient_hash: string }>(`select recipient_hash from message_outbox where status = 'pending'`);
    expect(left.map((r) => r.recipient_hash)).toEqual([cipher.lookupHash(other.phone!)]);
    const [audit] = await t.db.query<{ details: Record<string, unknown> }>(
      `select details from audit_events where action = 'compliance.user_erased' and entity_id = $1`,
      [person.userId],
    );
    expect(audit.details).toMatchObject({ pendingMessages: 2 });
    await t.db.query(`delete from message_outbox`);
  });
});

describe('GET /activations/records and erased people', () => {
  it('leaves the erased person’s activations out unless includeDeleted=true, which shows them with deletedAt', async () => {
    const person = await signUp(t);
    const a = await activate(person.token);
    await requestDeletion(person.token);
    type Page = { items: Array<{ activationId: string; deletedAt: string | null; deletionRequestedAt: string | null }> };
    const records = async (query: Record<string, string>) =>
      typed<Page>(
        await request(t.app)
          .get('/activations/records')
          .query({ limit: '100', ...query })
          .set(bearer(root.token)),
      );
    // Requested, not erased yet: still listed, stamped.
    const requested = (await records({})).body.items.find((i) => i.activationId === a.activationId);
    expect(requested).toMatchObject({ deletedAt: null, deletionRequestedAt: t.clock().toISOString() });
    await erase(person.userId);
    expect((await records({})).body.items.map((i) => i.activationId)).not.toContain(a.activationId);
    const shown = (await records({ includeDeleted: 'true' })).body.items.find((i) => i.activationId === a.activationId);
    expect(shown?.deletedAt).toBe(t.clock().toISOString());
  });
});
