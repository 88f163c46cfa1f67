import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { MagicLinkResponse } from '../../src/auth/schemas';
import { errorCodes } from '../../src/http/error-codes';
import type { FieldIssue } from '../../src/http/errors';
import { nextStepOf } from '../../src/auth/magic-link';
import { createTestApp, errorCode, MOBILE, type TestApp } from '../helpers/app';
import { insertActivation, linksOf, post, readyCompany, rosterRow, type ReadyCompany, type ReadyOptions } from '../helpers/links-fixtures';
import { match } from '../helpers/match';
import { errorOf, typed } from '../helpers/responses';

// Redemption is tested against links the portal's own routes mint (export returns raw links once,
// send delivers them in messages), on the app's real lookups: company status, latest activation and
// the seat's package all come from the database.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Redeemed = z.infer<typeof MagicLinkResponse>;
type ExportAnswer = { data: { entries: { rosterId: string; link: string }[]; skipped: { code: string }[] } };

const tokenOf = (link: string) => /#token=([A-Za-z0-9_-]+)$/.exec(link)?.[1] ?? '';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const ALL_CONSENTS = ['terms_of_service', 'privacy_policy', 'data_processing'];

const redeem = (token: unknown, headers: Record<string, string> = MOBILE) =>
  request(t.app).post('/auth/magic-link').set(headers).send({ token });

/** Exports links through the route; one raw token per requested entry, in rosterId order. */
async function exportTokens(c: ReadyCompany, body: { rosterIds: string[]; contractItemId?: string; packageId?: string }) {
  const res = typed<ExportAnswer>(await post(t, c.token, '/b2b/roster/links/export', body));
  if (res.status !== 200 || res.body.data.entries.length !== body.rosterIds.length) {
    throw new Error(`export failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.data.entries.map((e) => tokenOf(e.link));
}

/** A ready company (prepaid by default) and one exported link for its first person. */
async function exported(opts: ReadyOptions = {}) {
  const c = await readyCompany(t, { people: 1, ...opts });
  const rosterId = c.rosterIds[0];
  const body =
    opts.mode === 'flexible'
      ? { rosterIds: [rosterId], packageId: c.packageIds[0] }
      : { rosterIds: [rosterId], contractItemId: c.itemIds[0] };
  const [token] = await exportTokens(c, body);
  const { user_id: userId } = await rosterRow(t, rosterId);
  return { c, rosterId, userId, token };
}

const linkStatus = async (rosterId: string) => (await linksOf(t, rosterId)).map((l) => l.status);

describe('POST /auth/magic-link: redemption of a minted link', () => {
  it('redeems an exported prepaid link into a mobile session with the seat, and consumes the link', async () => {
    const { c, rosterId, userId, token } = await exported();
    // What the mint wrote: the contract line's package on the link and on the roster row.
    const [minted] = await linksOf(t, rosterId);
    expect([minted.status, minted.package_id, minted.contract_item_id]).toEqual(['exported', c.packageIds[0], c.itemIds[0]]);
    expect(minted.token_hash).toBe(sha256(token));

    const res = typed<Redeemed>(await redeem(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: match.objectContaining({ id: userId, appRole: 'end_user' }),
      session: { token: match.any(String), clientType: 'mobile', expiresAt: match.any(String) },
      b2b: { nextStep: 'iccid_entry', packageId: c.packageIds[0], activationId: null, consentsRequired: ALL_CONSENTS },
    });
    const [link] = await linksOf(t, rosterId);
    expect(link.status).toBe('used');
    const [roster] = await t.db.query<{ link_status: string }>('select link_status from roster_entries where id = $1', [rosterId]);
    expect(roster.link_status).toBe('used');
    const session = typed<{ user: { id: string } }>(
      await request(t.app).get('/auth/session').set('Authorization', `Bearer ${res.body.session.token}`),
    );
    expect([session.status, session.body.user.id]).toEqual([200, userId]);
  });

  it("answers the package of the person's own contract line when the company has several", async () => {
    const c = await readyCompany(t, {
      people: 1,
      lines: [
        { qty: 5, unitPriceHalalas: 8_000 },
        { qty: 5, unitPriceHalalas: 9_000 },
      ],
    });
    const [token] = await exportTokens(c, { rosterIds: c.rosterIds, contractItemId: c.itemIds[1] });
    const res = typed<Redeemed>(await redeem(token));
    expect([res.status, res.body.b2b.packageId]).toEqual([200, c.packageIds[1]]);
  });

  it("answers a flexible seat's package (the one assigned at mint)", async () => {
    const { c, rosterId, token } = await exported({ mode: 'flexible' });
    expect((await linksOf(t, rosterId))[0].package_id).toBe(c.packageIds[0]);
    const res = typed<Redeemed>(await redeem(token));
    expect([res.status, res.body.b2b]).toEqual([
      200,
      { nextStep: 'iccid_entry', packageId: c.packageIds[0], activationId: null, consentsRequired: ALL_CONSENTS },
    ]);
  });

  it("falls back to the link's contract line, then the roster entry, for a link minted without a package", async () => {
    const { c, rosterId, token } = await exported();
    await t.db.query('update invitation_links set package_id = null where roster_entry_id = $1', [rosterId]);
    expect(typed<Redeemed>(await redeem(token)).body.b2b.packageId).toBe(c.packageIds[0]);

    const flex = await exported({ mode: 'flexible' });
    await t.db.query('update invitation_links set package_id = null where roster_entry_id = $1', [flex.rosterId]);
    expect(typed<Redeemed>(await redeem(flex.token)).body.b2b.packageId).toBe(flex.c.packageIds[0]);
  });

  it('redeems a link delivered by send into a web session (cookie, no token in the body)', async () => {
    const c = await readyCompany(t, { people: 1 });
    const before = t.messages.length;
    const sent = typed<{ data: { sent: number } }>(
      await post(t, c.token, '/b2b/roster/links/send', { rosterIds: c.rosterIds, contractItemId: c.itemIds[0] }),
    );
    expect([sent.status, sent.body.data.sent]).toEqual([200, 1]);
    const [message] = t.messages.slice(before);
    const token = /#token=([A-Za-z0-9_-]+)/.exec(message.text)?.[1] ?? '';
    expect((await linksOf(t, c.rosterIds[0]))[0].status).toBe('sent');

    const res = typed<Redeemed>(await redeem(token, { 'X-Client-Type': 'web', 'Accept-Language': 'ar' }));
    expect(res.status).toBe(200);
    expect(res.body.session).toEqual({ clientType: 'web', expiresAt: match.any(String) });
    expect(res.body.b2b.packageId).toBe(c.packageIds[0]);
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(
      /^activation-sys-session=.+; Max-Age=3600; Path=\/; HttpOnly; Secure; Priority=High; SameSite=Strict$/,
    );
    expect(await linkStatus(c.rosterIds[0])).toEqual(['used']);
  });

  it('lists only the required consents the person has not recorded', async () => {
    const { userId, token } = await exported();
    await t.db.query(`insert into consents (id, user_id, type, version, recorded_at) values ($1, $2, 'privacy_policy', '1', now())`, [
      randomUUID(),
      userId,
    ]);
    expect(typed<Redeemed>(await redeem(token)).body.b2b.consentsRequired).toEqual(['terms_of_service', 'data_processing']);
  });

  it('gives exactly one session to parallel redemptions of one token; the others answer MAGIC_LINK_ALREADY_USED', async () => {
    const { userId, token } = await exported();
    const results = await Promise.all(Array.from({ length: 10 }, () => redeem(token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401 && errorCode(r) === 'MAGIC_LINK_ALREADY_USED')).toHaveLength(9);
    const [{ n }] = await t.db.query<{ n: number }>('select count(*)::int as n from sessions where user_id = $1', [userId]);
    expect(n).toBe(1);
  });

  it('never logs the token', async () => {
    const { token } = await exported();
    await redeem(token);
    await redeem(token);
    expect(t.logLines.join('\n')).not.toContain(token);
  });
});

describe('POST /auth/magic-link: nextStep, packageId and activationId from the latest activation', () => {
  /** An exported link whose person has an activation of the seat's package in `status` with the identity fields. */
  async function withActivation(status: string, identity: { status: string; ref: string | null } = { status: 'waiting', ref: null }) {
    const x = await exported();
    await insertActivation(t, { userId: x.userId, packageId: x.c.packageIds[0], status, companyId: x.c.companyId });
    const [{ id }] = await t.db.query<{ id: string }>(
      'update activations set identity_status = $2, identity_ref = $3 where user_id = $1 returning id',
      [x.userId, identity.status, identity.ref],
    );
    return { ...x, activationId: id };
  }

  it.each([
    ['pending, identity not submitted → identity_entry', 'pending', { status: 'waiting', ref: null }, 'identity_entry'],
    ['pending, identity rejected → identity_entry', 'pending', { status: 'rejected', ref: 'trans-1' }, 'identity_entry'],
    ['pending, identity submitted → identity_waiting', 'pending', { status: 'waiting', ref: 'trans-1' }, 'identity_waiting'],
    ['pending, identity completed → done', 'pending', { status: 'completed', ref: 'trans-1' }, 'done'],
    ['in progress → done', 'in_progress', { status: 'completed', ref: 'trans-1' }, 'done'],
  ])('%s', async (_label, status, identity, nextStep) => {
    const x = await withActivation(status, identity);
    const res = typed<Redeemed>(await redeem(x.token));
    expect([res.status, res.body.b2b]).toEqual([
      200,
      { nextStep, packageId: x.c.packageIds[0], activationId: x.activationId, consentsRequired: ALL_CONSENTS },
    ]);
  });

  it.each(['failed', 'cancelled'])('a %s latest activation starts over at iccid_entry with the seat and no activation', async (status) => {
    const x = await withActivation(status);
    const res = typed<Redeemed>(await redeem(x.token));
    expect([res.status, res.body.b2b]).toEqual([
      200,
      { nextStep: 'iccid_entry', packageId: x.c.packageIds[0], activationId: null, consentsRequired: ALL_CONSENTS },
    ]);
  });

  it('reads only the most recent activation', async () => {
    const x = await withActivation('failed');
    await t.db.query(`update activations set created_at = now() - interval '1 day' where user_id = $1`, [x.userId]);
    await insertActivation(t, { userId: x.userId, packageId: x.c.packageIds[0], status: 'pending' });
    const [latest] = await t.db.query<{ id: string }>(
      `update activations set identity_ref = 'trans-2' where user_id = $1 and status = 'pending' returning id`,
      [x.userId],
    );
    expect(typed<Redeemed>(await redeem(x.token)).body.b2b).toMatchObject({ nextStep: 'identity_waiting', activationId: latest.id });
  });
});

describe('POST /auth/magic-link: refusals', () => {
  /** Each refusal in both languages, with the status and message of the error table. */
  async function expectRefused(token: unknown, code: keyof typeof errorCodes) {
    const { status, en, ar } = errorCodes[code];
    const english = await redeem(token);
    expect([english.status, errorCode(english), errorOf(english).message]).toEqual([status, code, en]);
    const arabic = await redeem(token, { ...MOBILE, 'Accept-Language': 'ar' });
    expect([arabic.status, errorCode(arabic), errorOf(arabic).message]).toEqual([status, code, ar]);
  }

  it('answers MAGIC_LINK_INVALID 401 for a token that was never minted, and for a failed delivery', async () => {
    await expectRefused(randomBytes(32).toString('base64url'), 'MAGIC_LINK_INVALID');
    const { rosterId, token } = await exported();
    await t.db.query(`update invitation_links set status = 'failed' where roster_entry_id = $1`, [rosterId]);
    await expectRefused(token, 'MAGIC_LINK_INVALID');
  });

  it('answers MAGIC_LINK_ALREADY_USED 401 on the second use', async () => {
    const { token } = await exported();
    expect((await redeem(token)).status).toBe(200);
    await expectRefused(token, 'MAGIC_LINK_ALREADY_USED');
  });

  it('answers MAGIC_LINK_ALREADY_USED for a used link even after its expiry', async () => {
    const { token } = await exported();
    expect((await redeem(token)).status).toBe(200);
    t.clock.advance(25 * 3_600_000);
    await expectRefused(token, 'MAGIC_LINK_ALREADY_USED');
  });

  it('answers MAGIC_LINK_REVOKED 401 for a link revoked by the portal', async () => {
    const { c, rosterId, token } = await exported();
    await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [rosterId] }).expect(200);
    await expectRefused(token, 'MAGIC_LINK_REVOKED');
  });

  it('answers MAGIC_LINK_REVOKED for the prior link of a re-minted person; the new one redeems', async () => {
    const { c, rosterId, token } = await exported();
    const [fresh] = await exportTokens(c, { rosterIds: [rosterId], contractItemId: c.itemIds[0] });
    await expectRefused(token, 'MAGIC_LINK_REVOKED');
    expect((await redeem(fresh)).status).toBe(200);
  });

  it('answers MAGIC_LINK_EXPIRED 401 after the 24-hour lifetime (lazy expiry: the row still reads exported)', async () => {
    const { rosterId, token } = await exported();
    t.clock.advance(24 * 3_600_000 - 1_000);
    const stillLive = await exported();
    t.clock.advance(1_000);
    await expectRefused(token, 'MAGIC_LINK_EXPIRED');
    expect(await linkStatus(rosterId)).toEqual(['exported']);
    expect((await redeem(stillLive.token)).status).toBe(200);
  });

  it('answers MAGIC_LINK_EXPIRED for a link stored expired', async () => {
    const { rosterId, token } = await exported();
    await t.db.query(`update invitation_links set status = 'expired' where roster_entry_id = $1`, [rosterId]);
    await expectRefused(token, 'MAGIC_LINK_EXPIRED');
  });

  it.each(['pending', 'suspended', 'rejected'])(
    'answers COMPANY_NOT_APPROVED 403 for a %s company without consuming the link',
    async (status) => {
      const { c, rosterId, token } = await exported();
      await t.db.query('update companies set status = $2 where id = $1', [c.companyId, status]);
      await expectRefused(token, 'COMPANY_NOT_APPROVED');
      expect(await linkStatus(rosterId)).toEqual(['exported']);
      await t.db.query(`update companies set status = 'approved' where id = $1`, [c.companyId]);
      expect((await redeem(token)).status).toBe(200);
    },
  );

  it('answers AUTH_ACCOUNT_DEACTIVATED 401 for a deactivated account without consuming the link', async () => {
    const { rosterId, userId, token } = await exported();
    await t.db.query('update users set is_active = false where id = $1', [userId]);
    await expectRefused(token, 'AUTH_ACCOUNT_DEACTIVATED');
    expect(await linkStatus(rosterId)).toEqual(['exported']);
  });

  it('answers MAGIC_LINK_USER_ALREADY_ACTIVE 409 when the latest activation is activated, without consuming the link', async () => {
    const { c, rosterId, userId, token } = await exported();
    await insertActivation(t, { userId, packageId: c.packageIds[0], status: 'activated', companyId: c.companyId });
    await expectRefused(token, 'MAGIC_LINK_USER_ALREADY_ACTIVE');
    expect(await linkStatus(rosterId)).toEqual(['exported']);
    const [{ n }] = await t.db.query<{ n: number }>('select count(*)::int as n from sessions where user_id = $1', [userId]);
    expect(n).toBe(0);
  });

  it('checks the link before the company: a revoked link of a suspended company answers MAGIC_LINK_REVOKED', async () => {
    const { c, rosterId, token } = await exported();
    await post(t, c.token, '/b2b/roster/links/revoke', { rosterIds: [rosterId] }).expect(200);
    await t.db.query(`update companies set status = 'suspended' where id = $1`, [c.companyId]);
    await expectRefused(token, 'MAGIC_LINK_REVOKED');
  });

  it.each([
    ['a 19-character token', 'x'.repeat(19)],
    ['a 201-character token', 'x'.repeat(201)],
    ['a missing token', undefined],
    ['a token that is not a string', 1234567890123456],
  ])('answers VALIDATION_ERROR 400 for %s', async (_label, token) => {
    const res = await redeem(token);
    expect([res.status, errorCode(res)]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf<FieldIssue[]>(res).details).toEqual([{ path: 'token', message: match.any(String) }]);
  });

  it.each([20, 200])('takes a %i-character token (then answers MAGIC_LINK_INVALID)', async (length) => {
    await expectRefused('x'.repeat(length), 'MAGIC_LINK_INVALID');
  });
});

describe('nextStepOf', () => {
  it('maps every activation state', () => {
    const base = { id: 'a', packageId: null, identityRef: null } as const;
    expect(nextStepOf(null)).toBe('iccid_entry');
    expect(nextStepOf({ ...base, status: 'failed', identityStatus: 'completed' })).toBe('iccid_entry');
    expect(nextStepOf({ ...base, status: 'cancelled', identityStatus: 'waiting' })).toBe('iccid_entry');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'waiting' })).toBe('identity_entry');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'rejected', identityRef: 'x' })).toBe('identity_entry');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'expired', identityRef: 'x' })).toBe('identity_entry');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'waiting', identityRef: 'x' })).toBe('identity_waiting');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'completed', identityRef: 'x' })).toBe('done');
    expect(nextStepOf({ ...base, status: 'in_progress', identityStatus: 'completed', identityRef: 'x' })).toBe('done');
  });
});
