import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import type { MagicLinkResponse } from '../../src/auth/schemas';
import type { FieldIssue } from '../../src/http/errors';
import { nextStepOf, type LatestActivation, type MagicLinkLookups } from '../../src/auth/magic-link';
import { createTestApp, errorCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { errorOf, typed } from '../helpers/responses';

// Companies arrive with the B2B issue; these lookups stand in for them and for activations (the app's own are tested at the end).
const companies = new Map<string, 'pending' | 'approved' | 'rejected' | 'suspended'>();
const activations = new Map<string, LatestActivation>();
const lookups: MagicLinkLookups = {
  companyStatus: (id) => Promise.resolve(companies.get(id) ?? null),
  latestActivation: (userId) => Promise.resolve(activations.get(userId) ?? null),
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ deps: { magicLinkLookups: lookups } });
});
afterAll(() => t.close());
const app = () => t;

const code = errorCode;

/** Stages a user and an invitation the way the B2B portal will: only the token's hash is stored. */
async function invite(
  opts: {
    status?: string;
    expiresInMs?: number;
    companyStatus?: 'pending' | 'approved' | 'suspended';
    packageId?: string;
    on?: TestApp;
  } = {},
) {
  const t = opts.on ?? app();
  const { userId, token: userToken } = await signUp(t);
  const companyId = randomUUID();
  companies.set(companyId, opts.companyStatus ?? 'approved');
  const token = randomBytes(32).toString('base64url');
  await t.db.query(
    `insert into invitation_links (id, token_hash, user_id, company_id, package_id, status, expires_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
    [
      randomUUID(),
      createHash('sha256').update(token).digest('hex'),
      userId,
      companyId,
      opts.packageId ?? null,
      opts.status ?? 'sent',
      new Date(t.clock().getTime() + (opts.expiresInMs ?? 24 * 3600_000)),
    ],
  );
  await t.db.query('delete from consents where user_id = $1', [userId]);
  return { token, userId, userToken };
}

const redeem = (token: string, headers: Record<string, string> = MOBILE) =>
  request(t.app).post('/auth/magic-link').set(headers).send({ token });
type Redeemed = z.infer<typeof MagicLinkResponse>;

describe('POST /auth/magic-link', () => {
  it('redeems a link into a session with the b2b next step and missing consents', async () => {
    const packageId = randomUUID();
    const { token, userId } = await invite({ packageId });
    const res = typed<Redeemed>(await redeem(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: match.objectContaining({ id: userId, appRole: 'end_user' }),
      session: { token: match.any(String), clientType: 'mobile', expiresAt: match.any(String) },
      b2b: {
        nextStep: 'iccid_entry',
        packageId,
        activationId: null,
        consentsRequired: ['terms_of_service', 'privacy_policy', 'data_processing'],
      },
    });
    const [link] = await t.db.query<{ status: string; used_at: Date | null; token_hash: string }>(
      'select status, used_at, token_hash from invitation_links where user_id = $1',
      [userId],
    );
    expect(link.status).toBe('used');
    expect(link.used_at).not.toBeNull();
    expect(link.token_hash).not.toBe(token);
    const session = await request(t.app).get('/auth/session').set('Authorization', `Bearer ${res.body.session.token}`);
    expect(session.status).toBe(200);
  });

  it('sets the web cookie for web clients', async () => {
    const { token } = await invite();
    const res = typed<Redeemed>(await redeem(token, { 'X-Client-Type': 'web' }));
    expect(res.body.session.token).toBeUndefined();
    expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(
      /^activation-sys-session=.+; Max-Age=3600; Path=\/; HttpOnly; Secure; Priority=High; SameSite=Strict$/,
    );
  });

  it('answers MAGIC_LINK_ALREADY_USED on the second use, and exactly one of parallel uses wins', async () => {
    const { token } = await invite();
    const results = await Promise.all(Array.from({ length: 5 }, () => redeem(token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => code(r) === 'MAGIC_LINK_ALREADY_USED')).toHaveLength(4);
    expect(code(await redeem(token))).toBe('MAGIC_LINK_ALREADY_USED');
  });

  it.each([
    ['MAGIC_LINK_INVALID', () => Promise.resolve({ token: randomBytes(32).toString('base64url') })],
    ['MAGIC_LINK_REVOKED', () => invite({ status: 'revoked' })],
    ['MAGIC_LINK_EXPIRED', () => invite({ expiresInMs: -1 })],
    ['MAGIC_LINK_ALREADY_USED', () => invite({ status: 'used' })],
  ])('answers %s with 401', async (expected, make) => {
    const { token } = await make();
    const res = await redeem(token);
    expect([res.status, code(res)]).toEqual([401, expected]);
  });

  it('expires links after 24 hours by the clock', async () => {
    const { token } = await invite();
    t.clock.advance(24 * 3600_000);
    expect(code(await redeem(token))).toBe('MAGIC_LINK_EXPIRED');
  });

  it('answers COMPANY_NOT_APPROVED 403 for a company that is not approved', async () => {
    const { token } = await invite({ companyStatus: 'suspended' });
    const res = await redeem(token);
    expect([res.status, code(res)]).toEqual([403, 'COMPANY_NOT_APPROVED']);
  });

  it('answers AUTH_ACCOUNT_DEACTIVATED for a deactivated account', async () => {
    const { token, userId } = await invite();
    await t.db.query('update users set is_active = false where id = $1', [userId]);
    expect(code(await redeem(token))).toBe('AUTH_ACCOUNT_DEACTIVATED');
  });

  it('answers MAGIC_LINK_USER_ALREADY_ACTIVE 409 when the latest activation is activated', async () => {
    const { token, userId } = await invite();
    activations.set(userId, { id: randomUUID(), packageId: null, status: 'activated', identityStatus: 'completed', identityRef: 'r' });
    const res = await redeem(token);
    expect([res.status, code(res)]).toEqual([409, 'MAGIC_LINK_USER_ALREADY_ACTIVE']);
  });

  it('computes nextStep from the latest activation', async () => {
    const { token, userId } = await invite();
    const activationId = randomUUID();
    const packageId = randomUUID();
    activations.set(userId, { id: activationId, packageId, status: 'pending', identityStatus: 'waiting', identityRef: 'trans-1' });
    const res = typed<Redeemed>(await redeem(token));
    expect(res.body.b2b).toMatchObject({ nextStep: 'identity_waiting', activationId, packageId });
  });

  it.each([
    ['a short token', 'x'.repeat(19)],
    ['a long token', 'x'.repeat(201)],
    ['a missing token', undefined],
  ])('answers VALIDATION_ERROR for %s', async (_label, token) => {
    const res = await request(t.app).post('/auth/magic-link').send({ token });
    expect(res.status).toBe(400);
    expect(errorOf<FieldIssue[]>(res).details).toEqual([{ path: 'token', message: match.any(String) }]);
  });

  it('never logs the token', async () => {
    const { token } = await invite();
    await redeem(token);
    expect(t.logLines.join('\n')).not.toContain(token);
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
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'waiting', identityRef: 'x' })).toBe('identity_waiting');
    expect(nextStepOf({ ...base, status: 'pending', identityStatus: 'completed', identityRef: 'x' })).toBe('done');
    expect(nextStepOf({ ...base, status: 'in_progress', identityStatus: 'completed', identityRef: 'x' })).toBe('done');
  });
});

it('phone numbers are unique per test', () => {
  expect(newPhone()).not.toBe(newPhone());
});

describe("POST /auth/magic-link with the app's own activation lookups", () => {
  let real: TestApp;
  beforeAll(async () => {
    real = await createTestApp();
    await seedCatalog(real);
  });
  afterAll(() => real.close());
  const redeemOn = (token: string) => request(real.app).post('/auth/magic-link').set(MOBILE).send({ token });

  it("computes nextStep from the person's latest activation", async () => {
    const { token, userId } = await invite({ on: real });
    await insertActivation(real, { userId, status: 'cancelled', createdAt: '2026-01-01T00:00:00.000Z' });
    const { activationId } = await insertActivation(real, {
      userId,
      identityStatus: 'waiting',
      identityRef: 'trans-1',
      createdAt: '2026-02-01T00:00:00.000Z',
    });
    const res = typed<Redeemed>(await redeemOn(token));
    expect([res.status, res.body.b2b]).toMatchObject([200, { nextStep: 'identity_waiting', activationId }]);
  });

  it('refuses the link with MAGIC_LINK_USER_ALREADY_ACTIVE when the latest activation is activated', async () => {
    const { token, userId } = await invite({ on: real });
    await insertActivation(real, { userId, status: 'activated' });
    const res = await redeemOn(token);
    expect([res.status, code(res)]).toEqual([409, 'MAGIC_LINK_USER_ALREADY_ACTIVE']);
  });
});
