import request from 'supertest';
import type { z } from 'zod';
import type { ProfileUser, RegisterResponse, SignInResponse } from '../../src/auth/schemas';
import { bearer, CONSENTS, createTestApp, errorCode, lastCode, MOBILE, newPhone, type TestApp } from '../helpers/app';
import { typed } from '../helpers/responses';
import { untilWaitingOnLock } from '../helpers/db';

// Each identifier is proven by its own code: an identifier nobody has proven never blocks a
// registration and never rides along on the proof of another one; whoever proves it takes it.
type Registered = z.infer<typeof RegisterResponse>;
type SignedIn = z.infer<typeof SignInResponse>;
type Profile = z.infer<typeof ProfileUser>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let mailCounter = 0;
const newEmail = (label: string) => `${label}-${process.pid}-${(mailCounter += 1)}@example.com`;

const register = (body: object) =>
  request(t.app)
    .post('/auth/register')
    .send({ name: 'Person', consents: CONSENTS, ...body });
const verify = (body: object) => request(t.app).post('/auth/verify-otp').set(MOBILE).send(body);
const login = (body: object) => request(t.app).post('/auth/login').send(body);
const sentTo = (to: string) => t.messages.filter((m) => m.to === to);

/** The attacker's move: the victim's phone next to the attacker's own e-mail, verified by e-mail. */
async function preHijack(victimPhone: string) {
  const attackerEmail = newEmail('attacker');
  const reg = typed<Registered>(await register({ phone: victimPhone, email: attackerEmail, name: 'Attacker' }));
  expect(reg.status).toBe(201);
  const signedIn = typed<SignedIn>(await verify({ email: attackerEmail, otp: lastCode(t, attackerEmail) }));
  expect(signedIn.status).toBe(200);
  return { attackerId: reg.body.userId, attackerEmail, attackerToken: signedIn.body.session.token!, signedIn: signedIn.body };
}

const proofState = async (userId: string) =>
  (
    await t.db.query<{ phone_proven: boolean; email_proven: boolean }>('select phone_proven, email_proven from users where id = $1', [
      userId,
    ])
  )[0];

describe('pre-hijack: an identifier proven by someone else never rides along', () => {
  it('the attacker who verified by e-mail does not own the victim phone; the victim registers and signs in with it', async () => {
    const victimPhone = newPhone();
    const { attackerId, attackerEmail, signedIn } = await preHijack(victimPhone);
    // The account shows what it registered with, but the phone was never proven.
    expect(signedIn.user).toMatchObject({ id: attackerId, phone: victimPhone, email: attackerEmail });
    expect(await proofState(attackerId)).toEqual({ phone_proven: false, email_proven: true });

    // The victim registers with their own phone: not blocked by the attacker's unproven claim.
    const victim = typed<Registered>(await register({ phone: victimPhone, name: 'Victim' }));
    expect(victim.status).toBe(201);
    expect(victim.body.userId).not.toBe(attackerId);
    const victimIn = typed<SignedIn>(await verify({ phone: victimPhone, otp: lastCode(t, victimPhone) }));
    expect(victimIn.status).toBe(200);
    expect(victimIn.body.user).toMatchObject({ id: victim.body.userId, phone: victimPhone, email: null, name: 'Victim' });

    // Later sign-ins with that phone reach the victim's account, never the attacker's.
    await login({ phone: victimPhone }).expect(200);
    const again = typed<SignedIn>(await verify({ phone: victimPhone, otp: lastCode(t, victimPhone) }));
    expect(again.body.user.id).toBe(victim.body.userId);

    // The proof released the attacker's claim on the number.
    const [attacker] = await t.db.query<{ phone_hash: string | null; pending_phone_hash: string | null }>(
      'select phone_hash, pending_phone_hash from users where id = $1',
      [attackerId],
    );
    expect(attacker).toEqual({ phone_hash: null, pending_phone_hash: null });
  });

  it('a code sent to the e-mail cannot prove the phone: each identifier gets its own code', async () => {
    const phone = newPhone();
    const email = newEmail('dual');
    await register({ phone, email }).expect(201);
    const phoneCode = lastCode(t, phone);
    const mailCode = lastCode(t, email);
    expect(sentTo(phone)).toHaveLength(1);
    expect(sentTo(email)).toHaveLength(1);
    if (phoneCode !== mailCode) {
      expect(errorCode(await verify({ phone, otp: mailCode }))).toBe('AUTH_INVALID_OTP');
    }
    // Each code proves its own identifier of the dual-credential account.
    const byPhone = typed<SignedIn>(await verify({ phone, otp: phoneCode }));
    expect(byPhone.body.user).toMatchObject({ phone, email });
    expect(await proofState(byPhone.body.user.id)).toEqual({ phone_proven: true, email_proven: false });
    const byMail = typed<SignedIn>(await verify({ email, otp: mailCode }));
    expect(byMail.body.user).toMatchObject({ id: byPhone.body.user.id, phone, email });
    expect(await proofState(byPhone.body.user.id)).toEqual({ phone_proven: true, email_proven: true });
  });

  it('a sign-in through an unproven identifier sends its code to that identifier alone', async () => {
    const victimPhone = newPhone();
    const { attackerEmail } = await preHijack(victimPhone);
    t.clock.advance(301_000);
    const toPhone = sentTo(victimPhone).length;
    const toMail = sentTo(attackerEmail).length;
    await login({ phone: victimPhone }).expect(200);
    // Only the phone's owner can read it: the account's other channel gets nothing to type in.
    expect(sentTo(victimPhone)).toHaveLength(toPhone + 1);
    expect(sentTo(attackerEmail)).toHaveLength(toMail);
  });

  it('the phone stays unproven until its own code: the owner proves it later through change-phone', async () => {
    const phone = newPhone();
    const email = newEmail('later');
    await register({ phone, email }).expect(201);
    const signedIn = typed<SignedIn>(await verify({ email, otp: lastCode(t, email) }));
    const token = signedIn.body.session.token!;
    t.clock.advance(301_000); // the registration code of the phone has expired
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: phone }).expect(200);
    const proven = await request(t.app)
      .post('/auth/verify-change-phone')
      .set(bearer(token))
      .send({ newPhone: phone, otp: lastCode(t, phone) });
    expect(proven.status).toBe(200);
    expect(typed<Profile>(await request(t.app).get('/auth/me').set(bearer(token))).body).toMatchObject({ phone, email });
    expect(await proofState(signedIn.body.user.id)).toEqual({ phone_proven: true, email_proven: true });
  });

  it('AUTH_PHONE_EXISTS and AUTH_EMAIL_EXISTS only for proven identifiers', async () => {
    const phone = newPhone();
    const email = newEmail('proven');
    await register({ phone, email }).expect(201);
    // Nothing proven yet: a second registration with the same identifiers is not refused.
    const unfinished = await register({ phone, email, name: 'Again' });
    expect(unfinished.status).toBe(201);
    await verify({ phone, otp: lastCode(t, phone) }).expect(200);
    await verify({ email, otp: lastCode(t, email) }).expect(200);
    const byPhone = await register({ phone });
    expect([byPhone.status, errorCode(byPhone)]).toEqual([401, 'AUTH_PHONE_EXISTS']);
    const byMail = await register({ email });
    expect([byMail.status, errorCode(byMail)]).toEqual([401, 'AUTH_EMAIL_EXISTS']);
  });

  it('an unfinished registration is replaced: the newest one proves the number, the empty leftover is removed', async () => {
    const phone = newPhone();
    const first = typed<Registered>(await register({ phone, name: 'First try' }));
    t.clock.advance(301_000);
    // The number is the unfinished account's, unproven: the new registration claims it.
    const second = typed<Registered>(await register({ phone, name: 'Second try' }));
    expect(second.status).toBe(201);
    const res = typed<SignedIn>(await verify({ phone, otp: lastCode(t, phone) }));
    expect(res.body.user).toMatchObject({ id: second.body.userId, phone, name: 'Second try' });
    expect(await t.db.query('select id from users where id = $1', [first.body.userId])).toHaveLength(0);
  });

  it('an unfinished registration of both identifiers is replaced whole: the newest shows both once one is proven', async () => {
    const phone = newPhone();
    const email = newEmail('again');
    const first = typed<Registered>(await register({ phone, email, name: 'First try' }));
    t.clock.advance(301_000);
    const second = typed<Registered>(await register({ phone, email, name: 'Second try' }));
    const res = typed<SignedIn>(await verify({ phone, otp: lastCode(t, phone) }));
    // The leftover went with the number, which freed the e-mail: the new account's claim on it became its identifier.
    expect(res.body.user).toMatchObject({ id: second.body.userId, phone, email });
    expect(await t.db.query('select id from users where id = $1', [first.body.userId])).toHaveLength(0);
    expect(await proofState(second.body.userId)).toEqual({ phone_proven: true, email_proven: false });
  });
});

describe('a code whose challenge goes while it is checked', () => {
  it('reads AUTH_INVALID_OTP, not AUTH_EXPIRED_OTP, when a parallel proof removed the empty account with its code', async () => {
    // The race a phone change wins: the registrant's sign-in has read its challenge, then the change
    // releases the claim and deletes the never-used account, and its challenge with it.
    const phone = newPhone();
    const registered = typed<Registered>(await register({ phone, name: 'Registrant' }));
    const code = lastCode(t, phone);
    const holder = await t.db.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from otp_challenges where user_id = $1 for update', [registered.body.userId]);
      const signIn = verify({ phone, otp: code }).then((res) => res);
      await untilWaitingOnLock(t.db, 'update otp_challenges set attempts%');
      await holder.query('delete from users where id = $1', [registered.body.userId]);
      await holder.query('commit');
      const res = await signIn;
      expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_INVALID_OTP']);
    } finally {
      holder.release();
    }
  });
});

describe('two accounts proving one number at once', () => {
  /** A phone change and a registration's sign-in prove one new number at the same moment. */
  async function race() {
    const phone = newPhone();
    const owner = newEmail('changer');
    await register({ email: owner }).expect(201);
    const signedIn = typed<SignedIn>(await verify({ email: owner, otp: lastCode(t, owner) }));
    const token = signedIn.body.session.token!;
    // A phone-change code belongs to its user: a registration of the same number does not void it.
    await request(t.app).post('/auth/change-phone').set(bearer(token)).send({ newPhone: phone }).expect(200);
    const changeCode = lastCode(t, phone);
    const registered = typed<Registered>(await register({ phone, name: 'Registrant' }));
    const registerCode = lastCode(t, phone);

    const [change, signIn] = await Promise.all([
      request(t.app).post('/auth/verify-change-phone').set(bearer(token)).send({ newPhone: phone, otp: changeCode }),
      verify({ phone, otp: registerCode }),
    ]);
    const holders = await t.db.query<{ id: string }>('select id from users where phone_hash is not null and id in ($1, $2)', [
      signedIn.body.user.id,
      registered.body.userId,
    ]);
    return { change: [change.status, errorCode(change)], signIn: [signIn.status, errorCode(signIn)], holders: holders.length };
  }

  it('one keeps it (the unique index decides); the other gets AUTH_PHONE_EXISTS or AUTH_INVALID_OTP, never a deadlock', async () => {
    // Several rounds: each proof locks both accounts in id order, so whichever runs second reads the
    // first's outcome (without that they could deadlock, and the loser answered 502).
    for (let round = 0; round < 12; round++) {
      const { change, signIn, holders } = await race();
      expect([change[0], signIn[0]].filter((s) => s === 200)).toHaveLength(1);
      if (change[0] !== 200) expect(change).toEqual([409, 'AUTH_PHONE_EXISTS']);
      if (signIn[0] !== 200) expect(signIn).toEqual([401, 'AUTH_INVALID_OTP']);
      expect(holders).toBe(1);
    }
  });
});
