/**
 * The steps both demos walk (src/cli/demo.ts, src/cli/demo-b2b.ts): OTP sign-in, and an activation
 * from its serial to `activated` (validate, create, identity, wait for the workflow).
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ActivationStatusResponse } from '../activations/read-routes';
import type {
  CreateActivationResponse,
  IdentityStatusResponse,
  ValidateIccidResponse,
  VerifyIdentityResponse,
} from '../activations/schemas';
import type { SignInResponse } from '../auth/schemas';
import { withLuhnDigit } from '../operators/mock';
import { DemoError, OTP_PATTERN, type DemoClient } from './demo-client';

/** A status poll reads the activation, or (422) the error envelope of one that cannot be read yet. */
type StatusPoll = Partial<z.infer<typeof ActivationStatusResponse>> & { error?: { code: string; message: string } };
/** Polls are requests too: every second keeps a walk well inside the per-IP rate limit. */
const POLL_MS = 1_000;
const FINAL_STATUSES: readonly string[] = ['activated', 'failed', 'cancelled'];

export const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** A valid mock ICCID whose behaviour digits (15-18) activate on the first try. */
export function demoIccid(): string {
  return withLuhnDigit(`89966${digits(9)}0${digits(3)}`);
}

/** A fresh Saudi mobile number. */
export const demoPhone = () => `+9665${digits(8)}`;

/** Asks for a login code, reads it from the message sink and signs in (mobile): the session's token and user. */
export async function signInByOtp(c: DemoClient, phone: string) {
  const since = new Date();
  await c.call('POST', '/auth/login', { phone });
  return verifyOtp(c, phone, since);
}

export async function verifyOtp(c: DemoClient, phone: string, since: Date) {
  const otp = await c.awaitMessage('the OTP message', phone, OTP_PATTERN, since);
  c.show('code', `${otp}  (from ${c.messagesFile})`);
  const session = await c.call<z.infer<typeof SignInResponse>>('POST', '/auth/verify-otp', { phone, otp });
  return { token: session.session.token ?? '', user: session.user };
}

/** validate-iccid, then POST /activations: the activation's and its order's ids. */
export async function createActivation(
  c: DemoClient,
  token: string,
  packageId: string,
  simType: 'physical' | 'esim',
  // A given serial reaches one of the mock operator's outcomes (src/operators/mock.ts); default: a fresh one that activates.
  given?: string,
) {
  c.step(`Validate the ${simType === 'esim' ? 'eSIM activation code' : 'SIM serial (ICCID)'}`);
  const serial = given ?? (simType === 'esim' ? `LPA:1$smdp.demo.example$DEMO-${randomUUID().slice(0, 8).toUpperCase()}` : demoIccid());
  const validation = await c.call<z.infer<typeof ValidateIccidResponse>>('POST', '/activations/validate-iccid', { iccid: serial, simType });
  c.show('serial', serial);
  c.show('valid', validation.valid);
  if (!validation.valid) throw new DemoError(`serial refused: ${validation.error}`);

  c.step('Create the activation (one transaction: order, order item, activation; the workflow starts)');
  const created = await c.call<z.infer<typeof CreateActivationResponse>>(
    'POST',
    '/activations',
    { iccid: serial, packageId, simType },
    { token },
  );
  c.show('activationId', created.activationId);
  c.show('orderId', created.orderId);
  c.show('status', `${created.status}, identity ${created.identityStatus}`);
  return created;
}

/** Starts the national identity check and polls until the mock provider answers. */
export async function verifyIdentity(c: DemoClient, token: string, activationId: string) {
  c.step('Verify the national identity (the mock provider confirms after a few seconds)');
  const verification = await c.call<z.infer<typeof VerifyIdentityResponse>>(
    'POST',
    `/activations/${activationId}/verify-identity`,
    // A new person each run (SIM limits count per id number); ending in 0, which the mock provider confirms.
    { identityType: 'citizen', idNumber: `1${digits(8)}0` },
    { token },
  );
  c.show('randomCode', `${verification.randomCode}  (confirmed in the identity app)`);
  c.log(`   polling GET /activations/${activationId}/verify-identity`);
  const identity = await c.until(
    'identity verification',
    async () => {
      const res = await c.call<z.infer<typeof IdentityStatusResponse>>('GET', `/activations/${activationId}/verify-identity`, undefined, {
        token,
        expected: [200],
        quiet: true,
      });
      return res.status === 'waiting' ? undefined : res;
    },
    POLL_MS,
  );
  c.show('identity', identity);
  if (identity.status !== 'completed') throw new DemoError(`identity verification ended ${identity.status}`);
}

/** Polls the activation until it is final; anything but `activated` fails the walk. */
export async function awaitActivated(c: DemoClient, token: string, activationId: string) {
  c.step('Wait for the workflow to hand the SIM to the operator');
  c.log(`   polling GET /activations/${activationId}/status`);
  let seen: string | undefined;
  const final = await c.until(
    'the activation to finish',
    async () => {
      const res = await c.call<StatusPoll>('GET', `/activations/${activationId}/status`, undefined, {
        token,
        expected: [200, 422],
        quiet: true,
      });
      if (res.status !== seen) c.show('status', (seen = res.status) ?? res.error);
      return FINAL_STATUSES.includes(res.status ?? '') || res.error ? res : undefined;
    },
    POLL_MS,
  );
  if (final.status !== 'activated') throw new DemoError(`activation ended ${JSON.stringify(final)}`);
  c.show('iccid', final.iccid);
  if (final.esimProfile) c.show('esimProfile', final.esimProfile);
  return final;
}

/** A workflow's page in the Temporal UI (namespace default). */
export const runUrl = (uiUrl: string, workflowId: string) => `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
