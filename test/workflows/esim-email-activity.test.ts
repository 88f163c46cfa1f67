/**
 * The eSIM e-mail activity with a real sender that can fail (MockActivityEnvironment, real Postgres):
 * a refused address is given up (it would be refused forever), a transient failure is thrown for
 * Temporal to retry.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivationActivities } from '../../activities/activations';
import { createMockIdentityProvider } from '../../src/identity/provider';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { mockOperators } from '../../src/operators/mock';
import { OperatorRegistry } from '../../src/operators/plugin';
import { MessageDeliveryError, type MessageSender, type OutgoingMessage } from '../../src/providers/messages';
import request from 'supertest';
import { CONSENTS, createTestApp, lastCode, MOBILE, newPhone, signUp, type TestApp } from '../helpers/app';
import { esimCode } from '../helpers/activations';
import { insertActivation, seedCatalog } from '../helpers/read-app';

let t: TestApp;
let activationId: string;
const email = 'esim.owner@example.com';
const code = 'LPA:1$smdp.example.com$ESIM-MAIL-1';

beforeAll(async () => {
  t = await createTestApp();
  await seedCatalog(t);
  const { userId } = await signUp(t, { email });
  ({ activationId } = await insertActivation(t, {
    userId,
    iccid: esimCode(),
    simType: 'esim',
    status: 'activated',
    esimProfile: { smdpAddress: 'smdp.example.com', matchingId: 'ESIM-MAIL-1', activationCodeRaw: code, qrUrl: '/x' },
  }));
});
afterAll(() => t.close());

function sendEsimQrEmail(send: MessageSender['send'], id = activationId) {
  const acts = createActivationActivities({
    db: t.db.sql,
    operators: new OperatorRegistry(mockOperators()),
    identity: createMockIdentityProvider({ delayMs: 0 }),
    cipher: createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY),
    messages: { send },
  });
  return new MockActivityEnvironment().run((input: { activationId: string }) => acts.sendEsimQrEmail(input), { activationId: id });
}

it('sends the e-mail with its content for the bilingual rendering', async () => {
  const sent: OutgoingMessage[] = [];
  await sendEsimQrEmail((message) => {
    sent.push(message);
    return Promise.resolve();
  });
  expect(sent).toEqual([
    expect.objectContaining({ channel: 'email', to: email, purpose: 'esim.qr', content: { kind: 'esim_ready', activationCode: code } }),
  ]);
});

it('gives up on a permanently refused address instead of retrying forever', async () => {
  await expect(
    sendEsimQrEmail(() => Promise.reject(new MessageDeliveryError('email', 'SMTP EENVELOPE 550', true))),
  ).resolves.toBeUndefined();
});

it('throws a transient failure so that Temporal retries it', async () => {
  const transient = new MessageDeliveryError('email', 'SMTP ESOCKET', false);
  await expect(sendEsimQrEmail(() => Promise.reject(transient))).rejects.toBe(transient);
});

// Consumer spec, Events: "a QR e-mail when an eSIM is issued". A user who registered with a phone and
// an e-mail and signed in by the phone has that e-mail (User: email is null only for phone-only users).
it('goes to the e-mail of a user who registered with both and signed in by phone', async () => {
  const phone = newPhone();
  const dualEmail = 'esim.dual@example.com';
  const reg = await request(t.app).post('/auth/register').send({ phone, email: dualEmail, name: 'Dual', consents: CONSENTS }).expect(201);
  await request(t.app)
    .post('/auth/verify-otp')
    .set(MOBILE)
    .send({ phone, otp: lastCode(t, phone) })
    .expect(200);
  const dual = await insertActivation(t, {
    userId: (reg.body as { userId: string }).userId,
    iccid: esimCode(),
    simType: 'esim',
    status: 'activated',
    esimProfile: { smdpAddress: 'smdp.example.com', matchingId: 'ESIM-MAIL-2', activationCodeRaw: code, qrUrl: '/x' },
  });
  const sent: OutgoingMessage[] = [];
  await sendEsimQrEmail((message) => {
    sent.push(message);
    return Promise.resolve();
  }, dual.activationId);
  expect(sent).toEqual([expect.objectContaining({ channel: 'email', to: dualEmail, purpose: 'esim.qr' })]);
});
