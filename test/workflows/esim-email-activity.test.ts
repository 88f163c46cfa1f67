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
import { createTestApp, signUp, type TestApp } from '../helpers/app';
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

function sendEsimQrEmail(send: MessageSender['send']) {
  const acts = createActivationActivities({
    orm: t.db.orm,
    operators: new OperatorRegistry(mockOperators()),
    identity: createMockIdentityProvider({ delayMs: 0 }),
    cipher: createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY),
    messages: { send },
  });
  return new MockActivityEnvironment().run((input: { activationId: string }) => acts.sendEsimQrEmail(input), { activationId });
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
