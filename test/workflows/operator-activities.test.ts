/**
 * The operator handoff activities on their own (MockActivityEnvironment, real Postgres):
 * what they write, and that they heartbeat while an operator call runs.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivationActivities } from '../../activities/activations';
import { createMockIdentityProvider } from '../../src/identity/provider';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { OperatorRegistry, type OperatorPlugin } from '../../src/operators/plugin';
import { createMemoryMessageSender } from '../../src/providers/messages';
import { createTestApp, signUp, type TestApp } from '../helpers/app';
import { esimCode, iccid } from '../helpers/activations';
import { insertActivation, seedCatalog } from '../helpers/read-app';

let t: TestApp;
let userId: string;
beforeAll(async () => {
  t = await createTestApp();
  await seedCatalog(t);
  userId = (await signUp(t)).userId;
});
afterAll(() => t.close());

/** An operator (slug `mock`) whose calls take `delayMs` and whose eSIMs come without an ICCID. */
function slowOperator(delayMs: number): OperatorPlugin {
  const wait = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return {
    slug: 'mock',
    supportsEsim: true,
    validateSerial: () => Promise.resolve({ valid: true }),
    activateSim: async () => {
      await wait();
    },
    issueEsim: async () => {
      await wait();
      return { activationCode: 'LPA:1$smdp.operator.example$REFRESHED-1' };
    },
  };
}

const activities = (operator: OperatorPlugin) =>
  createActivationActivities({
    db: t.db.sql,
    operators: new OperatorRegistry([operator]),
    identity: createMockIdentityProvider({ delayMs: 0 }),
    cipher: createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY),
    messages: createMemoryMessageSender(),
  });

const row = async (id: string) =>
  (
    await t.db.query<{ status: string; iccid: string; esim_profile: Record<string, string> | null }>(
      'select status, iccid, esim_profile from activations where id = $1',
      [id],
    )
  )[0];

it('heartbeats while the operator call runs, so a lost worker is noticed within the heartbeat timeout', async () => {
  const { activationId } = await insertActivation(t, { userId, iccid: iccid(), status: 'in_progress' });
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
  let beats = 0;
  env.on('heartbeat', () => (beats += 1));
  const acts = activities(slowOperator(700));
  await env.run((input: { activationId: string }) => acts.activateSim(input), { activationId });
  expect(beats).toBeGreaterThanOrEqual(2);
  expect((await row(activationId)).status).toBe('activated');
});

it('keeps the submitted code as the serial when the operator assigns no profile ICCID', async () => {
  const submitted = esimCode();
  const { activationId } = await insertActivation(t, { userId, iccid: submitted, simType: 'esim', status: 'in_progress' });
  const acts = activities(slowOperator(0));
  await new MockActivityEnvironment({ heartbeatTimeoutMs: 10_000 }).run((input: { activationId: string }) => acts.issueEsim(input), {
    activationId,
  });
  expect(await row(activationId)).toEqual({
    status: 'activated',
    iccid: submitted,
    esim_profile: {
      smdpAddress: 'smdp.operator.example',
      matchingId: 'REFRESHED-1',
      activationCodeRaw: 'LPA:1$smdp.operator.example$REFRESHED-1',
      qrUrl: `/activations/${activationId}/esim-qr`,
    },
  });
});
