import request from 'supertest';
import type { z } from 'zod';
import type { CreateActivationResponse } from '../../src/activations/schemas';
import type { FieldIssue } from '../../src/http/errors';
import { bearer, createTestApp, errorCode, signUp, type TestApp } from '../helpers/app';
import { DEMO, esimCode, fakeActivationRuns, iccid, seedCatalog } from '../helpers/activations';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

type Created = z.infer<typeof CreateActivationResponse>;

const temporal = fakeActivationRuns();
let t: TestApp;
let noEsim: TestApp;
beforeAll(async () => {
  const deps = { activationRuns: temporal.runs, identity: temporal.identity, signalSender: temporal.signalSender };
  t = await createTestApp({ deps });
  noEsim = await createTestApp({ env: { FEATURE_ESIM: 'false' }, deps });
  await Promise.all([seedCatalog(t.db), seedCatalog(noEsim.db)]);
});
afterAll(async () => {
  await t.close();
  await noEsim.close();
});

const validate = (body: object, operator?: string) =>
  request(t.app)
    .post(`/activations/validate-iccid${operator ? `?operator=${operator}` : ''}`)
    .send(body);
const create = (token: string, body: object, app = t.app) => request(app).post('/activations').set(bearer(token)).send(body);

describe('POST /activations/validate-iccid', () => {
  it('accepts a Luhn-valid ICCID starting 89 with the mock operator by default', async () => {
    const res = await validate({ iccid: iccid() });
    expect([res.status, res.body]).toEqual([
      200,
      { valid: true, operatorId: DEMO.operators.mock, operatorSlug: 'mock', simType: 'physical' },
    ]);
  });

  it('answers valid:false for a serial the operator refuses (bad Luhn, wrong prefix)', async () => {
    const good = iccid();
    const badLuhn = good.slice(0, 18) + String((Number(good[18]) + 1) % 10);
    for (const serial of [badLuhn, '12' + good.slice(2)]) {
      const res = await validate({ iccid: serial });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ valid: false, simType: 'physical', error: match.any(String) });
    }
  });

  it.each([
    ['18 digits', { iccid: '891234567890123456' }],
    ['letters', { iccid: '89123456789012345ab' }],
    ['a missing iccid', {}],
    ['an unknown simType', { iccid: '8912345678901234567', simType: 'nano' }],
    ['an eSIM code with 2 segments', { iccid: 'LPA:1$smdp.example.com', simType: 'esim' }],
    ['an eSIM code over 255 characters', { iccid: `LPA:1$smdp.example.com$${'A'.repeat(250)}`, simType: 'esim' }],
    ['an eSIM code with 7 segments', { iccid: 'LPA:1$smdp.example.com$X$1.2$1$x$y', simType: 'esim' }],
  ])('answers VALIDATION_ERROR for %s', async (_label, body) => {
    const res = await validate(body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details[0].path).toEqual(match.stringMatching(/iccid|simType/));
  });

  it('validates eSIM codes with or without the LPA: prefix', async () => {
    for (const code of ['LPA:1$smdp.example.com$ABC-123', '1$smdp.example.com$ABC-123', 'LPA:1$smdp.example.com$ABC$1.3.6.1$1']) {
      expect((await validate({ iccid: code, simType: 'esim' })).body).toMatchObject({ valid: true, simType: 'esim' });
    }
  });

  it('answers OPERATOR_NOT_FOUND for an unregistered slug', async () => {
    const res = await validate({ iccid: iccid() }, 'nope');
    expect([res.status, errorCode(res)]).toEqual([404, 'OPERATOR_NOT_FOUND']);
  });

  it('answers ACTIVATION_ESIM_UNSUPPORTED_OPERATOR for an operator without eSIM', async () => {
    const res = await validate({ iccid: esimCode(), simType: 'esim' }, 'mock-noesim');
    expect([res.status, errorCode(res)]).toEqual([422, 'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR']);
  });

  it('answers ACTIVATION_ESIM_DISABLED when the eSIM gate is off', async () => {
    const res = await request(noEsim.app).post('/activations/validate-iccid').send({ iccid: esimCode(), simType: 'esim' });
    expect([res.status, errorCode(res)]).toEqual([422, 'ACTIVATION_ESIM_DISABLED']);
  });

  it("answers valid:false with the operator's reason when it refuses the serial outright", async () => {
    expect((await validate({ iccid: iccid('9006') })).body).toEqual({
      valid: false,
      simType: 'physical',
      error: 'SIM reported lost or stolen',
    });
    expect((await validate({ iccid: esimCode('BLOCKED'), simType: 'esim' })).body).toEqual({
      valid: false,
      simType: 'esim',
      error: 'Profile is installed on another device',
    });
  });

  it('maps operator timeouts to 504 and failures to 502', async () => {
    const timeout = await validate({ iccid: iccid('9001') });
    expect([timeout.status, errorCode(timeout)]).toEqual([504, 'OPERATOR_TIMEOUT']);
    const down = await validate({ iccid: iccid('9002') });
    expect([down.status, errorCode(down)]).toEqual([502, 'OPERATOR_UNAVAILABLE']);
  });
});

describe('POST /activations', () => {
  it('creates order, order item and activation in one transaction and starts the workflow', async () => {
    const { token, userId } = await signUp(t);
    const serial = iccid();
    const res = typed<Created>(await create(token, { iccid: serial, packageId: DEMO.packages.starter }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      activationId: match.any(String),
      orderId: match.any(String),
      status: 'pending',
      identityStatus: 'waiting',
      simType: 'physical',
    });
    const [row] = await t.db.query<Record<string, unknown>>(
      `select a.user_id, a.iccid, a.sim_type, a.status, a.identity_status, o.status as order_status, o.total_halalas, i.unit_price_halalas, i.quantity
         from activations a join orders o on o.id = a.order_id join order_items i on i.id = a.order_item_id where a.id = $1`,
      [res.body.activationId],
    );
    expect(row).toEqual({
      user_id: userId,
      iccid: serial,
      sim_type: 'physical',
      status: 'pending',
      identity_status: 'waiting',
      order_status: 'pending_payment',
      total_halalas: '4900',
      unit_price_halalas: '4900',
      quantity: 1,
    });
    expect(temporal.started.at(-1)).toEqual({
      activationId: res.body.activationId,
      userId,
      orderId: res.body.orderId,
      simType: 'physical',
    });
  });

  it('creates an eSIM activation storing the submitted code', async () => {
    const { token } = await signUp(t);
    const code = esimCode();
    const res = typed<Created>(await create(token, { iccid: code, packageId: DEMO.packages.plus, simType: 'esim' }));
    expect(res.status).toBe(201);
    expect(res.body.simType).toBe('esim');
    const [row] = await t.db.query<{ iccid: string; esim_profile: unknown }>('select iccid, esim_profile from activations where id = $1', [
      res.body.activationId,
    ]);
    expect(row).toEqual({ iccid: code, esim_profile: null });
  });

  // Issue 20: "A Temporal outage of a minute then refuses no create" (test/api/workflow-starts.test.ts for the pending start).
  it('answers 201 and keeps the rows when the workflow cannot start', async () => {
    const { token, userId } = await signUp(t);
    temporal.state.failStart = true;
    try {
      const res = await create(token, { iccid: iccid(), packageId: DEMO.packages.starter });
      expect(res.status).toBe(201);
    } finally {
      temporal.state.failStart = false;
    }
    expect(await t.db.query('select status from activations where user_id = $1', [userId])).toEqual([{ status: 'pending' }]);
    expect(await t.db.query('select status from orders where user_id = $1', [userId])).toEqual([{ status: 'pending_payment' }]);
  });

  it.each([
    ['visitor', 1],
    ['resident', 2],
  ])('holds the %s SIM limit (%i) under parallel creates', async (identityType, limit) => {
    const { token, userId } = await signUp(t);
    await t.db.query('update users set identity_type = $1 where id = $2', [identityType, userId]);
    const results = await Promise.all(Array.from({ length: 6 }, () => create(token, { iccid: iccid(), packageId: DEMO.packages.starter })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(limit);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, errorCode(r), errorOf<{ reason: string }>(r).details.reason])).toEqual(
      Array(6 - limit).fill([422, 'ACTIVATION_FAILED', 'SIM_LIMIT_EXCEEDED']),
    );
    expect(await t.db.query('select 1 from activations where user_id = $1', [userId])).toHaveLength(limit);
  });

  it('holds the citizen limit of 10 and frees a seat when an activation fails', async () => {
    const { token, userId } = await signUp(t);
    for (let i = 0; i < 10; i += 1) expect((await create(token, { iccid: iccid(), packageId: DEMO.packages.starter })).status).toBe(201);
    const eleventh = await create(token, { iccid: iccid(), packageId: DEMO.packages.starter });
    expect(errorOf(eleventh)).toMatchObject({
      code: 'ACTIVATION_FAILED',
      details: { reason: 'SIM_LIMIT_EXCEEDED', limit: 10, identityType: 'citizen' },
    });
    await t.db.query(`update activations set status = 'failed' where id = (select id from activations where user_id = $1 limit 1)`, [
      userId,
    ]);
    expect((await create(token, { iccid: iccid(), packageId: DEMO.packages.starter })).status).toBe(201);
  });

  // Issue 20: the limit counts per verified identity, not per account. At create the SIM's identity is not
  // proven yet, but an account that verified an identity before is that person: their SIMs on other accounts count.
  it('counts the live SIMs of every identity the account has verified, on any account', async () => {
    const hash = 'c'.repeat(64);
    const a = await signUp(t);
    const b = await signUp(t);
    // Account A holds the visitor's live SIM; account B verified the same identity before (a cancelled activation).
    const live = typed<Created>(await create(a.token, { iccid: iccid(), packageId: DEMO.packages.starter }));
    await t.db.query(`update activations set identity_status = 'completed', identity_type = 'visitor', id_number_hash = $2 where id = $1`, [
      live.body.activationId,
      hash,
    ]);
    const earlier = typed<Created>(await create(b.token, { iccid: iccid(), packageId: DEMO.packages.starter }));
    await t.db.query(
      `update activations set status = 'cancelled', identity_status = 'completed', identity_type = 'visitor', id_number_hash = $2 where id = $1`,
      [earlier.body.activationId, hash],
    );
    await t.db.query(`update users set identity_type = 'visitor' where id in ($1, $2)`, [a.userId, b.userId]);

    const refused = await create(b.token, { iccid: iccid(), packageId: DEMO.packages.starter });
    expect([refused.status, errorOf(refused).details]).toEqual([422, { reason: 'SIM_LIMIT_EXCEEDED', identityType: 'visitor', limit: 1 }]);
    // Once A's SIM is gone, B may create again.
    await t.db.query(`update activations set status = 'failed' where id = $1`, [live.body.activationId]);
    expect((await create(b.token, { iccid: iccid(), packageId: DEMO.packages.starter })).status).toBe(201);
  });

  it('refuses a serial already in a live activation', async () => {
    const a = await signUp(t);
    const b = await signUp(t);
    const serial = iccid();
    await create(a.token, { iccid: serial, packageId: DEMO.packages.starter }).expect(201);
    const res = await create(b.token, { iccid: serial, packageId: DEMO.packages.starter });
    expect(errorOf(res)).toMatchObject({ code: 'ACTIVATION_FAILED', details: { reason: 'SERIAL_IN_USE' } });
  });

  describe('Idempotency-Key (a retry after a lost answer)', () => {
    const keyed = (token: string, key: string, body: object) => create(token, body).set('Idempotency-Key', key);
    const rows = (userId: string) => t.db.query<{ n: number }>(`select count(*)::int as n from activations where user_id = $1`, [userId]);

    it('answers a repeat of the same request with the first answer, creating nothing more', async () => {
      const { token, userId } = await signUp(t);
      const body = { iccid: iccid(), packageId: DEMO.packages.starter };
      const first = await keyed(token, 'create-0001', body);
      expect(first.status).toBe(201);
      // Later the activation moved on; the repeat still answers the one create.
      await t.db.query(`update activations set identity_status = 'completed' where id = $1`, [(first.body as Created).activationId]);
      const again = await keyed(token, 'create-0001', body);
      expect([again.status, again.body]).toEqual([201, first.body]);
      expect(await rows(userId)).toEqual([{ n: 1 }]);
    });

    it('gives parallel repeats the one answer', async () => {
      const { token, userId } = await signUp(t);
      const body = { iccid: iccid(), packageId: DEMO.packages.starter };
      const answers = await Promise.all(Array.from({ length: 5 }, () => keyed(token, 'parallel-01', body)));
      expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(answers.map((res) => JSON.stringify(res.body))).size).toBe(1);
      expect(await rows(userId)).toEqual([{ n: 1 }]);
    });

    it('refuses the key with another body, and keeps keys per person', async () => {
      const a = await signUp(t);
      const b = await signUp(t);
      const body = { iccid: iccid(), packageId: DEMO.packages.starter };
      await keyed(a.token, 'shared-key-1', body).expect(201);
      const other = await keyed(a.token, 'shared-key-1', { ...body, packageId: DEMO.packages.basic });
      expect(errorOf(other)).toMatchObject({ code: 'ACTIVATION_FAILED', details: { reason: 'IDEMPOTENCY_KEY_REUSED' } });
      // Another person's same key is theirs: their request stands on its own (here: the serial is taken).
      const theirs = await keyed(b.token, 'shared-key-1', body);
      expect(errorOf(theirs)).toMatchObject({ code: 'ACTIVATION_FAILED', details: { reason: 'SERIAL_IN_USE' } });
    });

    it('answers VALIDATION_ERROR for a key outside 8-128 characters', async () => {
      const { token } = await signUp(t);
      for (const key of ['short', 'k'.repeat(129)]) {
        const res = await keyed(token, key, { iccid: iccid(), packageId: DEMO.packages.starter });
        expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
      }
    });
  });

  it.each([
    ['a missing packageId', { iccid: '8912345678901234567' }, 'packageId'],
    ['a packageId that is not a uuid', { iccid: '8912345678901234567', packageId: 'x' }, 'packageId'],
    ['a short ICCID', { iccid: '89123', packageId: DEMO.packages.starter }, 'iccid'],
    ['a malformed eSIM code', { iccid: 'LPA:2$x$y', packageId: DEMO.packages.starter, simType: 'esim' }, 'iccid'],
  ])('answers VALIDATION_ERROR for %s', async (_label, body, path) => {
    const { token } = await signUp(t);
    const res = await create(token, body);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details.map((d) => d.path)).toContain(path);
  });

  it('answers NOT_FOUND for an unknown or inactive package', async () => {
    const { token } = await signUp(t);
    const unknown = await create(token, { iccid: iccid(), packageId: '00000000-0000-4000-8000-000000000000' });
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'NOT_FOUND']);
    await t.db.query('update packages set is_active = false where id = $1', [DEMO.packages.unlimited]);
    const inactive = await create(token, { iccid: iccid(), packageId: DEMO.packages.unlimited });
    expect(errorCode(inactive)).toBe('NOT_FOUND');
  });

  it('answers the eSIM gate, operator support and operator refusal codes', async () => {
    const { token } = await signUp(t);
    const unsupported = await create(token, { iccid: esimCode(), packageId: DEMO.packages.basic, simType: 'esim' });
    expect([unsupported.status, errorCode(unsupported)]).toEqual([422, 'ACTIVATION_ESIM_UNSUPPORTED_OPERATOR']);
    const rejected = await create(token, { iccid: '8900000000000000000', packageId: DEMO.packages.starter });
    expect([rejected.status, errorCode(rejected)]).toEqual([422, 'ACTIVATION_ICCID_INVALID']);
    const stolen = await create(token, { iccid: iccid('9006'), packageId: DEMO.packages.starter });
    expect([stolen.status, errorCode(stolen)]).toEqual([422, 'ACTIVATION_ICCID_INVALID']);
    const blocked = await create(token, { iccid: esimCode('BLOCKED'), packageId: DEMO.packages.starter, simType: 'esim' });
    expect([blocked.status, errorCode(blocked)]).toEqual([422, 'ACTIVATION_CODE_INVALID']);
    expect(await t.db.query(`select 1 from activations where iccid like '%BLOCKED%'`)).toEqual([]);
    const timeout = await create(token, { iccid: esimCode('TIMEOUT'), packageId: DEMO.packages.starter, simType: 'esim' });
    expect([timeout.status, errorCode(timeout)]).toEqual([504, 'OPERATOR_TIMEOUT']);
    const other = await signUp(noEsim);
    const disabled = await create(other.token, { iccid: esimCode(), packageId: DEMO.packages.starter, simType: 'esim' }, noEsim.app);
    expect([disabled.status, errorCode(disabled)]).toEqual([422, 'ACTIVATION_ESIM_DISABLED']);
  });

  it('requires a session', async () => {
    const res = await request(t.app).post('/activations').send({ iccid: iccid(), packageId: DEMO.packages.starter });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
  });
});

describe('verify-identity', () => {
  async function pending() {
    const user = await signUp(t);
    const res = typed<Created>(await create(user.token, { iccid: iccid(), packageId: DEMO.packages.starter }));
    return { ...user, activationId: res.body.activationId };
  }

  type Verified = { transId: string; randomCode: string; status: string };
  const verify = async (token: string, activationId: string, body: object) =>
    typed<Verified>(await request(t.app).post(`/activations/${activationId}/verify-identity`).set(bearer(token)).send(body));
  const identityRow = async (activationId: string) =>
    (
      await t.db.query<Record<string, unknown>>(
        `select identity_ref, identity_status, identity_type, identity_attempts, id_number_encrypted, identity_code_encrypted
           from activations where id = $1`,
        [activationId],
      )
    )[0];
  const signalRows = (activationId: string) =>
    t.db.query<{ signal: string; args: Record<string, unknown>; delivered_at: Date | null; outcome: string | null; attempts: number }>(
      `select signal, args, delivered_at, outcome, attempts from workflow_signals where workflow_id = $1 order by id`,
      [`activation:${activationId}`],
    );

  it('POST starts the verification at the provider, records it, tells the run, and answers transId, randomCode, status', async () => {
    const { token, activationId } = await pending();
    const res = await verify(token, activationId, { identityType: 'citizen', idNumber: '1234567890' });
    expect([res.status, res.body]).toEqual([200, { transId: match.any(String), randomCode: '42', status: 'waiting' }]);
    expect(temporal.verified.at(-1)).toMatchObject({ activationId, idNumber: '1234567890' });
    expect(await identityRow(activationId)).toMatchObject({
      identity_ref: res.body.transId,
      identity_status: 'waiting',
      identity_type: 'citizen',
      identity_attempts: 1,
      id_number_encrypted: match.stringMatching(/^v1\./),
      identity_code_encrypted: match.stringMatching(/^v1\./),
    });
    // The run hears of it by a signal that carries no id number (Temporal's history never holds one).
    const [signal] = await signalRows(activationId);
    expect(signal).toMatchObject({ signal: 'identityStarted', outcome: 'signalled', delivered_at: match.any(Date) });
    expect(signal.args).toEqual({ transId: res.body.transId, attempt: 1 });
    expect(temporal.signals).toContainEqual(
      match.objectContaining({ workflowId: `activation:${activationId}`, signal: 'identityStarted' }),
    );
  });

  it('answers while Temporal is away: the signal waits for the relay, due at once', async () => {
    const { token, activationId } = await pending();
    temporal.state.failSignals = true;
    try {
      const res = await verify(token, activationId, { identityType: 'citizen', idNumber: '1234567890' });
      expect([res.status, res.body]).toEqual([200, { transId: match.any(String), randomCode: '42', status: 'waiting' }]);
    } finally {
      temporal.state.failSignals = false;
    }
    const [signal] = await signalRows(activationId);
    expect(signal).toMatchObject({ signal: 'identityStarted', delivered_at: null, attempts: 1 });
    const [due] = await t.db.query<{ due: boolean }>(
      `select next_attempt_at <= now() as due from workflow_signals where workflow_id = $1`,
      [`activation:${activationId}`],
    );
    expect(due.due).toBe(true);
  });

  it('answers a repeated request with the verification it started (one provider call); another id number starts the next attempt', async () => {
    const { token, activationId } = await pending();
    const body = { identityType: 'citizen', idNumber: '1234567890' };
    const first = await verify(token, activationId, body);
    const calls = temporal.verified.length;
    const again = await verify(token, activationId, body);
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect(temporal.verified.length).toBe(calls);
    expect(await signalRows(activationId)).toHaveLength(1);

    const corrected = await verify(token, activationId, { identityType: 'citizen', idNumber: '1234567899' });
    expect(corrected.status).toBe(200);
    expect(corrected.body.transId).not.toBe(first.body.transId);
    expect(await identityRow(activationId)).toMatchObject({ identity_ref: corrected.body.transId, identity_attempts: 2 });
    expect((await signalRows(activationId)).map((r) => r.args.attempt)).toEqual([1, 2]);
  });

  it('answers a repeat that comes after the verification completed with it (the answer was lost); nothing else once proven or not pending', async () => {
    const { token, activationId } = await pending();
    const body = { identityType: 'citizen', idNumber: '1234567880' };
    const first = await verify(token, activationId, body);
    await t.db.query(`update activations set identity_status = 'completed', identity_verified_at = now() where id = $1`, [activationId]);
    const again = await verify(token, activationId, body);
    expect([again.status, again.body]).toEqual([200, { ...first.body, status: 'completed' }]);
    const other = await verify(token, activationId, { ...body, idNumber: '1234567889' });
    expect([other.status, errorCode(other)]).toEqual([422, 'IDENTITY_ERROR']);
    await t.db.query(`update activations set status = 'in_progress' where id = $1`, [activationId]);
    const late = await verify(token, activationId, body);
    expect([late.status, errorCode(late)]).toEqual([422, 'IDENTITY_ERROR']);
    expect(await signalRows(activationId)).toHaveLength(1);
  });

  it('records nothing when the provider is unavailable (IDENTITY_ERROR, reason given); the retry reuses the attempt key', async () => {
    const { token, activationId } = await pending();
    const body = { identityType: 'resident', idNumber: '2234567890' };
    temporal.state.refuseVerify = 'unavailable';
    try {
      const refused = await verify(token, activationId, body);
      expect([refused.status, errorCode(refused)]).toEqual([422, 'IDENTITY_ERROR']);
      expect(errorOf(refused).details).toEqual({ reason: 'IDENTITY_PROVIDER_UNAVAILABLE' });
    } finally {
      temporal.state.refuseVerify = undefined;
    }
    expect(await identityRow(activationId)).toMatchObject({ identity_ref: null, identity_attempts: 0 });
    expect(await signalRows(activationId)).toEqual([]);
    const retried = await verify(token, activationId, body);
    expect(retried.status).toBe(200);
    expect(temporal.verified.at(-1)?.idempotencyKey).toMatch(new RegExp(`^activation:${activationId}:identity:1:resident:[0-9a-f]{16}$`));
  });

  it('GET reads the identity status from Postgres; verifiedAt only when completed', async () => {
    const { token, activationId } = await pending();
    const waiting = await request(t.app).get(`/activations/${activationId}/verify-identity`).set(bearer(token));
    expect(waiting.body).toEqual({ status: 'waiting', verifiedAt: null });
    await t.db.query(`update activations set identity_status = 'completed', identity_verified_at = now() where id = $1`, [activationId]);
    const done = await request(t.app).get(`/activations/${activationId}/verify-identity`).set(bearer(token));
    expect(done.body).toEqual({ status: 'completed', verifiedAt: match.stringMatching(/\.\d{3}Z$/) });
  });

  it("answers ACTIVATION_NOT_FOUND for another user's, an unknown or a malformed id", async () => {
    const { activationId } = await pending();
    const stranger = await signUp(t);
    for (const id of [activationId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const post = await request(t.app)
        .post(`/activations/${id}/verify-identity`)
        .set(bearer(stranger.token))
        .send({ identityType: 'citizen', idNumber: '1234567890' });
      expect([post.status, errorCode(post)]).toEqual([404, 'ACTIVATION_NOT_FOUND']);
      const get = await request(t.app).get(`/activations/${id}/verify-identity`).set(bearer(stranger.token));
      expect([get.status, errorCode(get)]).toEqual([404, 'ACTIVATION_NOT_FOUND']);
    }
  });

  it('answers IDENTITY_ERROR when the provider refuses, when the identity is already proven, or the activation is not pending', async () => {
    const { token, activationId } = await pending();
    const body = { identityType: 'resident', idNumber: '2234567890' };
    temporal.state.refuseVerify = 'refused';
    try {
      const refused = await verify(token, activationId, body);
      expect([refused.status, errorCode(refused)]).toEqual([422, 'IDENTITY_ERROR']);
    } finally {
      temporal.state.refuseVerify = undefined;
    }
    await t.db.query(`update activations set identity_status = 'completed' where id = $1`, [activationId]);
    const proven = await verify(token, activationId, body);
    expect([proven.status, errorCode(proven)]).toEqual([422, 'IDENTITY_ERROR']);
    await t.db.query(`update activations set status = 'in_progress', identity_status = 'waiting' where id = $1`, [activationId]);
    const res = await verify(token, activationId, body);
    expect([res.status, errorCode(res)]).toEqual([422, 'IDENTITY_ERROR']);
    expect(await signalRows(activationId)).toEqual([]);
  });

  it('validates the body and requires a session', async () => {
    const { token, activationId } = await pending();
    for (const body of [
      { identityType: 'alien', idNumber: '1234567890' },
      { identityType: 'citizen', idNumber: '1234' },
      { identityType: 'citizen', idNumber: 'x'.repeat(21) },
    ]) {
      const res = await request(t.app).post(`/activations/${activationId}/verify-identity`).set(bearer(token)).send(body);
      expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const anon = await request(t.app)
      .post(`/activations/${activationId}/verify-identity`)
      .send({ identityType: 'citizen', idNumber: '1234567890' });
    expect(errorCode(anon)).toBe('AUTH_REQUIRED');
  });
});
