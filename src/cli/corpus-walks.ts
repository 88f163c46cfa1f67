/**
 * The paths of the replay corpus (src/cli/replay-corpus.ts) that the demos do not walk, through the real API
 * with the demos' steps: an activation paid first by mobile wallet (a settlement run hears the wallet's
 * callback), one whose first identity check is rejected, two whose hand-off the operator rejects or fails once,
 * one over a visitor's SIM limit at verification (and its twin left waiting for payment), one cancelled by its
 * owner's account deletion, a store order issued by the provider's callback, and a company
 * suspended then reactivated. Each walk only needs to reach the end its run records.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { DEMO } from '../catalog/demo-seed';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import type { PaymentResult } from '../payments/schemas';
import { activationWorkflowId } from '../../workflows/activation-contract';
import { companyWorkflowId } from '../../workflows/company-contract';
import { quoteWorkflowId } from '../../workflows/quote-contract';
import { paymentWorkflowId } from '../../workflows/settlement-contract';
import { withLuhnDigit } from '../operators/mock';
import { storeOrderWorkflowId } from '../../workflows/store-order-contract';
import { createSuperAdmin, setUpCompany } from './demo-b2b';
import { runStoreDemo } from './demo-store';
import { createDemoClient, type DemoClient, type DemoClientOptions } from './demo-client';
import { awaitActivated, createActivation, demoPhone, digits, signInByOtp, verifyIdentity, verifyOtp } from './demo-steps';

/** What a walk started: each run's workflow id under the name of the path it took (the history's file name). */
export type Labels = Record<string, string>;
type Walk = (opts: DemoClientOptions) => Promise<Labels>;

/** A registered, signed-in customer's token. */
async function customer(c: DemoClient): Promise<string> {
  const phone = demoPhone();
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  const since = new Date();
  await c.call('POST', '/auth/register', { phone, name: 'Corpus User', consents });
  return (await verifyOtp(c, phone, since)).token;
}

/** Pays by local debit: the mock provider completes it at once (no settlement run). */
async function payAtOnce(c: DemoClient, token: string, orderId: string): Promise<void> {
  await c.call('POST', '/payments/create-intent', { orderId, method: 'local_debit', idempotencyKey: `corpus-${randomUUID()}` }, { token });
}

/** Paid before identity, by mobile wallet: `processing`, a settlement run, then the wallet's approval page. */
const paidFirstByWallet: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const payment = await c.call<z.infer<typeof PaymentResult>>(
    'POST',
    '/payments/mobile-wallet',
    { orderId, mobileNumber: `05${digits(8)}`, idempotencyKey: `corpus-${randomUUID()}` },
    { token },
  );
  // Opening the redirect stands for approving in the wallet app (src/payments/mock-wallet.ts).
  await fetch(`${opts.baseUrl}/mock-wallet/redirect/${payment.paymentId}`);
  await verifyIdentity(c, token, activationId);
  await awaitActivated(c, token, activationId);
  return {
    [activationWorkflowId(activationId)]: 'paid-first-by-mobile-wallet',
    [paymentWorkflowId(payment.paymentId)]: 'mobile-wallet-approved-by-callback',
  };
};

/**
 * Identity checks that do not succeed, then one that does: the mock provider's answer is chosen by the id
 * number's last digit (src/identity/provider.ts: 1 rejected, 2 expired, 3 error). The customer tries again
 * after each, then pays and the SIM is activated.
 */
function identityRetried(outcomes: Array<[digit: string, status: string]>, label: string): Walk {
  return async (opts) => {
    const c = createDemoClient(opts);
    const token = await customer(c);
    const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
    const path = `/activations/${activationId}/verify-identity`;
    for (const [digit, status] of outcomes) {
      await c.call('POST', path, { identityType: 'citizen', idNumber: `1${digits(8)}${digit}` }, { token });
      await c.until(
        `identity ${status}`,
        async () =>
          (await c.call<{ status: string }>('GET', path, undefined, { token, quiet: true })).status === status ? true : undefined,
        500,
      );
    }
    await verifyIdentity(c, token, activationId);
    await payAtOnce(c, token, orderId);
    await awaitActivated(c, token, activationId);
    return { [activationWorkflowId(activationId)]: label };
  };
}

/** An activation waiting for identity and payment when its owner deletes the account: the run cancels it. */
const cancelledByDeletion: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  await c.call('POST', '/auth/me/deletion-request', undefined, { token, expected: [202] });
  return { [activationWorkflowId(activationId)]: 'cancelled-by-account-deletion' };
};

/** A physical SIM whose behaviour digits (15-18) pick the mock operator's hand-off outcome (src/operators/mock.ts). */
const iccidWith = (behaviour: string) => withLuhnDigit(`89966${digits(9)}${behaviour}`);

/** Identity and payment done, then the hand-off: `9004` is rejected (the activation fails), `9003` fails once and is retried. */
function handoff(behaviour: string, label: string): Walk {
  return async (opts) => {
    const c = createDemoClient(opts);
    const token = await customer(c);
    const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical', iccidWith(behaviour));
    await verifyIdentity(c, token, activationId);
    await payAtOnce(c, token, orderId);
    await awaitStatus(c, token, activationId, ['activated', 'failed']);
    return { [activationWorkflowId(activationId)]: label };
  };
}

/** Polls an activation until its status is one of `statuses`. */
async function awaitStatus(c: DemoClient, token: string, activationId: string, statuses: string[]): Promise<void> {
  await c.until(
    `activation ${activationId} to be ${statuses.join(' or ')}`,
    async () => {
      const res = await c.call<{ status?: string }>('GET', `/activations/${activationId}/status`, undefined, {
        token,
        expected: [200, 422],
        quiet: true,
      });
      return statuses.includes(res.status ?? '') ? true : undefined;
    },
    500,
  );
}

/**
 * A visitor may hold one SIM (docs/decisions/sim-limits.md): two activations verified with one visitor's id
 * number; the second verification finds the first and its run fails it. The first waits for payment (running).
 */
const simLimitAtVerification: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const first = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const second = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const idNumber = `V${digits(8)}0`; // ending in 0: the mock provider confirms it
  for (const { activationId } of [first, second]) {
    const path = `/activations/${activationId}/verify-identity`;
    await c.call('POST', path, { identityType: 'visitor', idNumber }, { token });
    await c.until(
      'the verification',
      async () =>
        (await c.call<{ status: string }>('GET', path, undefined, { token, quiet: true })).status !== 'waiting' ? true : undefined,
      500,
    );
  }
  await awaitStatus(c, token, second.activationId, ['failed']);
  return {
    [activationWorkflowId(first.activationId)]: 'verified-awaiting-payment',
    [activationWorkflowId(second.activationId)]: 'sim-limit-at-verification',
  };
};

/** A store product the mock provider places as pending: issued when its signed callback arrives (the async path). */
const storeOrderByCallback: Walk = async (opts) => {
  const { orderId } = await runStoreDemo({ ...opts, country: 'EG', choose: (p) => p.nameEn.includes('delayed') });
  return { [storeOrderWorkflowId(orderId)]: 'issued-by-provider-callback' };
};

/** A company approved (setUpCompany), then suspended and reactivated by the super_admin. */
const companySuspendedAndReactivated: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const adminPhone = await createSuperAdmin(c);
  const { companyId, chainRootId } = await setUpCompany(c, { adminPhone }, 1);
  const root = (await signInByOtp(c, adminPhone)).token;
  for (const action of ['suspend', 'reactivate']) {
    await c.call('POST', `/admin/companies/${companyId}/status`, { action, reason: 'replay corpus' }, { token: root });
  }
  return {
    [companyWorkflowId(companyId)]: 'approved-suspended-reactivated',
    [quoteWorkflowId(chainRootId)]: 'countered-then-accepted',
  };
};

export const CORPUS_WALKS: Record<string, Walk> = {
  paidFirstByWallet,
  handoffRejected: handoff('9004', 'handoff-rejected'),
  handoffFailsOnceThenActivated: handoff('9003', 'handoff-retried-then-activated'),
  simLimitAtVerification,
  storeOrderByCallback,
  identityRejectedThenVerified: identityRetried([['1', 'rejected']], 'identity-rejected-then-verified'),
  identityExpiredAndErrorThenVerified: identityRetried(
    [
      ['2', 'expired'],
      ['3', 'error'],
    ],
    'identity-expired-then-error-then-verified',
  ),
  cancelledByDeletion,
  companySuspendedAndReactivated,
};
