import request from 'supertest';
import type { z } from 'zod';
import type { ProfileUser, RegisterResponse, SignInResponse } from '../../src/auth/schemas';
import { createUser, parseCreateUserArgs } from '../../src/cli/create-user';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, CONSENTS, createTestApp, errorCode, lastCode, MOBILE, newPhone, type TestApp } from '../helpers/app';
import { insertActivation, seedCatalog } from '../helpers/read-app';
import { typed } from '../helpers/responses';
import { signUpSuperAdmin } from '../helpers/staff';

// Consumer spec, User: "phone — Null for e-mail-only users"; "email — Null for phone-only users".
// "Phone-only, e-mail-only and dual-credential users exist." A user who registered with both is
// neither phone-only nor e-mail-only, whichever code they used first.
type Registered = z.infer<typeof RegisterResponse>;
type SignedIn = z.infer<typeof SignInResponse>;
type Profile = z.infer<typeof ProfileUser>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedCatalog(t);
});
afterAll(() => t.close());

let mailCounter = 0;
const newEmail = (label: string) => `${label}-${process.pid}-${(mailCounter += 1)}@example.com`;

const register = (body: object) =>
  request(t.app)
    .post('/auth/register')
    .send({ name: 'Dual', consents: CONSENTS, ...body });
const verify = (body: object) => request(t.app).post('/auth/verify-otp').set(MOBILE).send(body);
const login = (body: object) => request(t.app).post('/auth/login').send(body);
const me = async (token: string) => typed<Profile>(await request(t.app).get('/auth/me').set(bearer(token)));
const proofState = async (userId: string) =>
  (
    await t.db.query<{ phone_proven: boolean; email_proven: boolean }>('select phone_proven, email_proven from users where id = $1', [
      userId,
    ])
  )[0];

/** Registers with both identifiers and signs in through one of them only. */
async function registerDual(via: 'phone' | 'email') {
  const phone = newPhone();
  const email = newEmail('dual');
  const reg = typed<Registered>(await register({ phone, email }));
  expect(reg.status).toBe(201);
  const to = via === 'phone' ? phone : email;
  const signedIn = typed<SignedIn>(await verify({ [via]: to, otp: lastCode(t, to) }));
  expect(signedIn.status).toBe(200);
  return { phone, email, userId: reg.body.userId, token: signedIn.body.session.token!, user: signedIn.body.user };
}

describe('a dual-credential registration shows both identifiers, whichever one signed in', () => {
  it('verify-otp with the phone answers user.email as the registered e-mail', async () => {
    const { phone, email, userId, user } = await registerDual('phone');
    expect(user).toMatchObject({ id: userId, phone, email });
  });

  it('verify-otp with the e-mail answers user.phone as the registered phone', async () => {
    const { phone, email, userId, user } = await registerDual('email');
    expect(user).toMatchObject({ id: userId, phone, email });
  });

  it('GET /auth/me and GET /auth/session show both identifiers', async () => {
    const { phone, email, token } = await registerDual('phone');
    expect((await me(token)).body).toMatchObject({ phone, email });
    const session = await request(t.app).get('/auth/session').set(bearer(token));
    expect(session.body).toMatchObject({ user: { phone, email } });
  });

  it('GET /activations/records shows both identifiers of the owner', async () => {
    const { phone, email, userId } = await registerDual('email');
    const { activationId } = await insertActivation(t, { userId, createdAt: '2031-03-03T00:00:00.000Z' });
    const admin = await signUpSuperAdmin(t, 'Root');
    const res = await request(t.app)
      .get('/activations/records')
      .query({ from: '2031-03-03T00:00:00.000Z', to: '2031-03-03T00:00:00.000Z' })
      .set(bearer(admin.token));
    expect(res.status).toBe(200);
    const items = (res.body as { items: { activationId: string; user: unknown }[] }).items;
    expect(items.find((i) => i.activationId === activationId)?.user).toEqual({ id: userId, name: 'Dual', email, phone });
  });

  it('each identifier keeps its own proof state: the phone code proved the phone only', async () => {
    const { userId } = await registerDual('phone');
    expect(await proofState(userId)).toEqual({ phone_proven: true, email_proven: false });
  });
});

describe('POST /auth/login { email } for a user registered with both', () => {
  it('sends an OTP to the e-mail, and verifying it signs that user in (the identifier is registered)', async () => {
    const { email, userId } = await registerDual('phone');
    t.clock.advance(301_000);
    const before = t.messages.filter((m) => m.to === email).length;
    const res = await login({ email });
    expect(res.status).toBe(200);
    const sent = t.messages.filter((m) => m.to === email);
    expect(sent).toHaveLength(before + 1);
    expect(sent.at(-1)).toMatchObject({ channel: 'email', purpose: 'otp.login' });
    const signedIn = typed<SignedIn>(await verify({ email, otp: lastCode(t, email) }));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(userId);
    // "The first sign-in through a never-proven identifier proves it."
    expect(await proofState(userId)).toEqual({ phone_proven: true, email_proven: true });
  });

  it('tells the other, proven channel when a never-proven identifier first signs the account in', async () => {
    const { phone, email } = await registerDual('phone');
    t.clock.advance(301_000);
    await login({ email }).expect(200);
    const before = t.messages.filter((m) => m.to === phone).length;
    await verify({ email, otp: lastCode(t, email) }).expect(200);
    const notices = t.messages.filter((m) => m.to === phone).slice(before);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ channel: 'sms', purpose: 'account.identifier_proven', content: { kind: 'identifier_proven' } });
    expect(notices[0].content).toEqual({ kind: 'identifier_proven', identifier: `•••••@${email.split('@')[1]}` });
    // The notice names the e-mail masked, never in full.
    expect(notices[0].text).not.toContain(email);
    // A second sign-in through it is not news.
    await login({ email }).expect(200);
    await verify({ email, otp: lastCode(t, email) }).expect(200);
    expect(t.messages.filter((m) => m.to === phone).slice(before)).toHaveLength(1);
  });
});

describe('PUT /auth/me { email }: "Only these two fields can change. Response 200: the updated user object"', () => {
  it('answers 200 with the updated user object carrying the new e-mail, and GET /auth/me agrees', async () => {
    const { phone, token, userId } = await registerDual('phone');
    const next = newEmail('changed');
    const res = typed<Profile>(await request(t.app).put('/auth/me').set(bearer(token)).send({ email: next }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: userId, phone, email: next });
    expect((await me(token)).body.email).toBe(next);
    // Named, not proven: its own code proves it (sent now), or the first sign-in through it.
    expect(await proofState(userId)).toEqual({ phone_proven: true, email_proven: false });
    expect(t.messages.filter((m) => m.to === next).at(-1)).toMatchObject({ purpose: 'otp.change_email' });
  });

  it('the new e-mail signs the account in', async () => {
    const { token, userId } = await registerDual('phone');
    const next = newEmail('signin');
    await request(t.app).put('/auth/me').set(bearer(token)).send({ email: next }).expect(200);
    await login({ email: next }).expect(200);
    const signedIn = typed<SignedIn>(await verify({ email: next, otp: lastCode(t, next) }));
    expect(signedIn.body.user.id).toBe(userId);
  });
});

describe('PUT /auth/me { email: null } ("null removes it")', () => {
  it('removes the e-mail when the phone is proven, and refuses to leave only an unproven phone', async () => {
    const viaPhone = await registerDual('phone');
    const removed = typed<Profile>(await request(t.app).put('/auth/me').set(bearer(viaPhone.token)).send({ email: null }));
    expect([removed.status, removed.body.email, removed.body.phone]).toEqual([200, null, viaPhone.phone]);

    const viaMail = await registerDual('email');
    const refused = await request(t.app).put('/auth/me').set(bearer(viaMail.token)).send({ email: null });
    expect([refused.status, errorCode(refused)]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await me(viaMail.token)).body.email).toBe(viaMail.email);
  });
});

describe('an identifier its own channel never proved blocks nobody', () => {
  it('someone else registers it and proves it: the claim moves to the prover', async () => {
    const { email, userId: first, token } = await registerDual('phone');
    // The e-mail's owner registers it: not AUTH_EMAIL_EXISTS, since that account never proved it.
    const owner = typed<Registered>(await register({ email, name: 'Mailbox owner' }));
    expect(owner.status).toBe(201);
    // Until the owner proves it, the first account still shows it (uniqueness holds at every instant).
    expect((await me(token)).body.email).toBe(email);
    const signedIn = typed<SignedIn>(await verify({ email, otp: lastCode(t, email) }));
    expect(signedIn.body.user).toMatchObject({ id: owner.body.userId, email, phone: null });
    expect((await me(token)).body.email).toBeNull();
    const holders = await t.db.query<{ id: string }>(
      'select id from users where email_hash = (select email_hash from users where id = $1)',
      [owner.body.userId],
    );
    expect(holders.map((h) => h.id)).toEqual([owner.body.userId]);
    // Sign-ins by that e-mail reach the prover from now on.
    await login({ email }).expect(200);
    const again = typed<SignedIn>(await verify({ email, otp: lastCode(t, email) }));
    expect(again.body.user.id).toBe(owner.body.userId);
    expect(again.body.user.id).not.toBe(first);
  });

  it('a proven identifier still blocks: AUTH_EMAIL_EXISTS and AUTH_PHONE_EXISTS', async () => {
    const { phone, email } = await registerDual('phone');
    const byPhone = await register({ phone });
    expect([byPhone.status, errorCode(byPhone)]).toEqual([401, 'AUTH_PHONE_EXISTS']);
    // The e-mail is not proven yet: it does not block.
    await register({ email }).expect(201);
    t.clock.advance(301_000);
    await login({ email }).expect(200);
    // The first registrant's own sign-in through it proves it, for them.
    await verify({ email, otp: lastCode(t, email) }).expect(200);
    const byMail = await register({ email });
    expect([byMail.status, errorCode(byMail)]).toEqual([401, 'AUTH_EMAIL_EXISTS']);
  });

  it('an identifier staff entered counts as proven: registering it answers AUTH_PHONE_EXISTS', async () => {
    const phone = newPhone();
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    await createUser(t.db.sql, cipher, parseCreateUserArgs(['--role', 'end_user', '--name', 'Staged', '--phone', phone]));
    const res = await register({ phone });
    expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_PHONE_EXISTS']);
  });
});
