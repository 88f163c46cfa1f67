/**
 * The paths of the replay corpus (src/cli/replay-corpus.ts) that the demos do not walk, through the real API
 * with the demos' steps. CORPUS_WALKS run on the stack's API; CORPUS_VARIANT_WALKS each on an API of their
 * own whose settings (short timers, a fault) are read where a run starts. The table of paths and how each is
 * reached: docs/decisions/workflow-versioning.md. Each walk only needs to reach the end its run records.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { DEMO } from '../catalog/demo-seed';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import type { MobileWalletResult } from '../payments/schemas';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { paymentWorkflowId } from '../../workflows/contracts/settlement-contract';
import { withLuhnDigit } from '../operators/mock';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { createSuperAdmin, setUpCompany } from './demo-b2b';
import { runStoreDemo } from './demo-store';
import { createDemoClient, type DemoClient, type DemoClientOptions } from './demo-client';
import { awaitActivated, createActivation, demoPhone, digits, signInByOtp, verifyIdentity, verifyOtp } from './demo-steps';

/** What a walk started: each run's workflow id under the name of the path it took (the history's file name). */
export type Labels = Record<string, string>;
type Walk = (opts: DemoClientOptions) => Promise<Labels>;

/** A registered, signed-in customer: the session's token and user. */
async function signedUp(c: DemoClient) {
  const phone = demoPhone();
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  const since = new Date();
  await c.call('POST', '/auth/register', { phone, name: 'Corpus User', consents });
  return verifyOtp(c, phone, since);
}

/** A registered, signed-in customer's token. */
async function customer(c: DemoClient): Promise<string> {
  return (await signedUp(c)).token;
}

/** Pays by local debit: the mock provider completes it at once (no settlement run). */
async function payAtOnce(c: DemoClient, token: string, orderId: string): Promise<void> {
  await c.call('POST', '/payments/create-intent', { orderId, method: 'local_debit', idempotencyKey: `corpus-${randomUUID()}` }, { token });
}

/** Starts a mobile-wallet payment: `processing` until the wallet page approves or declines it. */
function payByWallet(c: DemoClient, token: string, orderId: string) {
  return c.call<z.infer<typeof MobileWalletResult>>(
    'POST',
    '/payments/mobile-wallet',
    { orderId, mobileNumber: `05${digits(8)}`, idempotencyKey: `corpus-${randomUUID()}` },
    { token },
  );
}

/** Paid before identity, by mobile wallet: `processing`, a settlement run, then the wallet's approval page. */
const paidFirstByWallet: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const payment = await payByWallet(c, token, orderId);
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

/** An identity check whose initiation the provider refuses (id ending 4): the update fails, the person tries again. */
const identityInitiationRefused: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const refused = await c.call<{ error?: { code: string } }>(
    'POST',
    `/activations/${activationId}/verify-identity`,
    { identityType: 'citizen', idNumber: `1${digits(8)}4` },
    { token, expected: [400, 422, 502, 503] },
  );
  if (refused.error?.code !== 'IDENTITY_ERROR') throw new Error(`initiation refusal answered ${JSON.stringify(refused)}`);
  await verifyIdentity(c, token, activationId);
  await payAtOnce(c, token, orderId);
  await awaitActivated(c, token, activationId);
  return { [activationWorkflowId(activationId)]: 'identity-initiation-refused-then-verified' };
};

/** `9005`: every hand-off times out; the run keeps retrying it (the history a deploy meets mid-retry). */
const handoffAlwaysTimingOut: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical', iccidWith('9005'));
  await verifyIdentity(c, token, activationId);
  await payAtOnce(c, token, orderId);
  await awaitStatus(c, token, activationId, ['in_progress']);
  return { [activationWorkflowId(activationId)]: 'handoff-always-timing-out' };
};

/** A store order the provider refuses for good (the mock's US product): the order ends `failed`. */
const storeOrderRefused: Walk = async (opts) => {
  const { orderId } = await runStoreDemo({ ...opts, country: 'US', choose: (p) => p.nameEn.includes('refused'), expect: 'failed' });
  return { [storeOrderWorkflowId(orderId)]: 'refused-by-provider' };
};

/** A store order whose first placement fails (retried), then issued. */
const storeOrderRetried: Walk = async (opts) => {
  const { orderId } = await runStoreDemo({ ...opts, country: 'GB', choose: (p) => p.nameEn.includes('fails once') });
  return { [storeOrderWorkflowId(orderId)]: 'placement-retried-then-issued' };
};

/** A mobile-wallet payment the customer declines in the wallet app: its settlement run fails it. */
const walletPaymentDeclined: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  const payment = await payByWallet(c, token, orderId);
  await fetch(`${opts.baseUrl}/mock-wallet/redirect/${payment.paymentId}?decision=declined`);
  const activation = activationWorkflowId(activationId);
  await c.until(
    'the payment to fail',
    async () => {
      const read = await c.call<{ status: string }>('GET', `/payments/${payment.paymentId}/receipt`, undefined, { token, quiet: true });
      return read.status === 'failed' ? true : undefined;
    },
    500,
  );
  return { [paymentWorkflowId(payment.paymentId)]: 'declined-in-wallet', [activation]: 'created-awaiting-identity' };
};

/** Rejections: the super_admin rejects a registered company; a company rejects its quote under review. */
const rejections: Walk = async (opts) => {
  const c = createDemoClient(opts);
  const adminPhone = await createSuperAdmin(c);
  const root = (await signInByOtp(c, adminPhone)).token;
  const rejected = await registerCompany(c, root);
  await c.call('POST', `/admin/companies/${rejected.companyId}/status`, { action: 'reject', reason: 'replay corpus' }, { token: root });
  const { companyId, portal } = await registerCompany(c, root);
  await c.call('POST', `/admin/companies/${companyId}/status`, { action: 'approve', reason: 'replay corpus' }, { token: root });
  const draft = await c.call<{ data: { id: string } }>(
    'POST',
    '/b2b/quotes',
    { needs: { userCount: 2, preference: 'data', budgetSar: 500 }, items: [{ packageId: DEMO.packages.starter, qty: 2 }] },
    { token: portal },
  );
  const chainRootId = draft.data.id;
  await c.call('POST', `/b2b/quotes/${chainRootId}/submit`, undefined, { token: portal });
  await c.call('POST', `/admin/quotes/${chainRootId}/start-review`, undefined, { token: root });
  await c.call('POST', `/admin/quotes/${chainRootId}/reject`, { note: 'replay corpus' }, { token: root });
  return {
    [companyWorkflowId(rejected.companyId)]: 'rejected',
    [companyWorkflowId(companyId)]: 'approved-quote-rejected',
    [quoteWorkflowId(chainRootId)]: 'rejected-under-review',
  };
};

/** A portal admin invited by the super_admin registers a company (pending; its run starts). */
async function registerCompany(c: DemoClient, root: string): Promise<{ companyId: string; portal: string }> {
  const phone = demoPhone();
  await c.call('POST', '/admin/companies/invites', { phone, name: 'Corpus Admin', role: 'admin' }, { token: root });
  const portal = (await signInByOtp(c, phone)).token;
  const registered = await c.call<{ data: { company: { id: string } } }>(
    'POST',
    '/b2b/company',
    {
      inKsa: true,
      crNumber: `10${digits(8)}`,
      name: `Corpus Co ${digits(4)}`,
      contactName: 'Corpus Admin',
      contactEmail: `corpus.${digits(6)}@example.com`,
      contactPhone: phone,
    },
    { token: portal },
  );
  return { companyId: registered.data.company.id, portal };
}

/**
 * The worker killed (SIGKILL) while the operator holds the hand-off (the corpus worker's MOCK_OPERATOR_DELAY_MS):
 * `npm run corpus` restarts it, the hand-off's heartbeat times out and the activity runs again there.
 */
const workerKilledMidHandoff: Walk = async (opts) => {
  const pidFile = process.env.CORPUS_WORKER_PID_FILE;
  if (!pidFile) throw new Error('CORPUS_WORKER_PID_FILE is not set: run it through `npm run corpus`, which restarts the worker');
  const c = createDemoClient({ ...opts, stepTimeoutMs: 90_000 });
  const token = await customer(c);
  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
  await verifyIdentity(c, token, activationId);
  await payAtOnce(c, token, orderId);
  await awaitStatus(c, token, activationId, ['in_progress']);
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  await awaitActivated(c, token, activationId);
  return { [activationWorkflowId(activationId)]: 'worker-killed-mid-handoff' };
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
  identityInitiationRefused,
  handoffAlwaysTimingOut,
  storeOrderRefused,
  storeOrderRetried,
  walletPaymentDeclined,
  rejections,
  workerKilledMidHandoff,
};

/**
 * A walk through an API configured otherwise (`env`: short timers, a fault): the generator starts that API
 * beside the stack's, on the same database, Temporal and worker, and walks through it (`opts.baseUrl`);
 * `stackUrl` is the stack's own API, for the steps after a fault.
 */
export interface VariantWalk {
  env: Record<string, string>;
  walk: (opts: DemoClientOptions & { stackUrl: string }) => Promise<Labels>;
}

/** Both ends at the cancel deadline: one never verified, one verified and never paid. */
const cancelledAtDeadline: VariantWalk = {
  env: { ACTIVATION_CANCEL_AFTER_SECONDS: '15' },
  walk: async (opts) => {
    const c = createDemoClient({ ...opts, stepTimeoutMs: 60_000 });
    const token = await customer(c);
    const unverified = await createActivation(c, token, DEMO.packages.starter, 'physical');
    const unpaid = await createActivation(c, token, DEMO.packages.starter, 'physical');
    await verifyIdentity(c, token, unpaid.activationId);
    for (const { activationId } of [unverified, unpaid]) await awaitStatus(c, token, activationId, ['cancelled']);
    return {
      [activationWorkflowId(unverified.activationId)]: 'cancelled-at-deadline-unverified',
      [activationWorkflowId(unpaid.activationId)]: 'cancelled-at-deadline-verified-unpaid',
    };
  },
};

/** The safety net for a lost "order paid": the run reads the order every second while it waits, then is paid. */
const paidCheckWhileWaiting: VariantWalk = {
  env: { ACTIVATION_PAID_CHECK_SECONDS: '1' },
  walk: async (opts) => {
    const c = createDemoClient(opts);
    const token = await customer(c);
    const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
    await verifyIdentity(c, token, activationId);
    await sleep(2_500);
    await payAtOnce(c, token, orderId);
    await awaitActivated(c, token, activationId);
    return { [activationWorkflowId(activationId)]: 'paid-checks-then-paid' };
  },
};

/** A store order never paid: it expires at its payment TTL. */
const storeOrderExpired: VariantWalk = {
  env: { STORE_ORDER_PAYMENT_TTL: '3s' },
  walk: async (opts) => {
    const { orderId } = await runStoreDemo({ ...opts, expect: 'expired' });
    return { [storeOrderWorkflowId(orderId)]: 'expired-unpaid' };
  },
};

/** A mobile-wallet payment never approved: its settlement run asks the processor once, then stops asking. */
const settlementGivesUp: VariantWalk = {
  env: { PAYMENT_SETTLEMENT_SILENCE_SECONDS: '1', PAYMENT_SETTLEMENT_MAX_LOOKUPS: '1', PAYMENT_SETTLEMENT_LINGER_SECONDS: '0' },
  walk: async (opts) => {
    const c = createDemoClient(opts);
    const token = await customer(c);
    const { orderId } = await createActivation(c, token, DEMO.packages.starter, 'physical');
    const payment = await payByWallet(c, token, orderId);
    await sleep(5_000); // silence, a lookup, silence, the end
    return { [paymentWorkflowId(payment.paymentId)]: 'lookups-exhausted' };
  },
};

/** Company and quote runs that continue as new after every event (their files: `continued_as_new-every-*`): the B2B walk to a funded contract. */
const continuedAsNew: VariantWalk = {
  env: { WORKFLOW_CONTINUE_AS_NEW_AFTER: '1' },
  walk: async (opts) => {
    const c = createDemoClient(opts);
    const adminPhone = await createSuperAdmin(c);
    const { companyId, chainRootId } = await setUpCompany(c, { adminPhone }, 1);
    return { [companyWorkflowId(companyId)]: 'every-event', [quoteWorkflowId(chainRootId)]: 'every-action' };
  },
};

/**
 * The API dies after an activation's rows commit, before its run starts (FAULT_INJECTION): the worker's start
 * relay starts it; the customer repeats the create on the stack's API (its Idempotency-Key answers the first)
 * and goes on there.
 */
const startedByRelay: VariantWalk = {
  env: { FAULT_INJECTION: 'crash-after-activation-commit' },
  walk: async (opts) => {
    const stack = createDemoClient({ ...opts, baseUrl: opts.stackUrl });
    const token = await customer(stack);
    const iccid = iccidWith('0000');
    const key = `corpus-${randomUUID()}`;
    // As a client that lost the answer recovers: the same create, with the same Idempotency-Key, again.
    const create = (c: DemoClient) =>
      c.call<{ activationId: string; orderId: string }>(
        'POST',
        '/activations',
        { iccid, packageId: DEMO.packages.starter, simType: 'physical' },
        { token, headers: { 'Idempotency-Key': key } },
      );
    const died = await create(createDemoClient(opts)).then(
      () => false,
      () => true,
    );
    if (!died) throw new Error('the API answered the create it should have died in');
    const { activationId, orderId } = await create(stack);
    await sleep(3_000); // the relay starts the run within a second or so
    await verifyIdentity(stack, token, activationId);
    await payAtOnce(stack, token, orderId);
    await awaitActivated(stack, token, activationId);
    return { [activationWorkflowId(activationId)]: 'started-by-relay-after-api-crash' };
  },
};

export const CORPUS_VARIANT_WALKS: Record<string, VariantWalk> = {
  cancelledAtDeadline,
  paidCheckWhileWaiting,
  storeOrderExpired,
  settlementGivesUp,
  continuedAsNew,
  startedByRelay,
};
