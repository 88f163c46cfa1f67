import { seedDemoCatalog } from '../../src/catalog/demo-seed';
import { withLuhnDigit } from '../../src/operators/mock';
import type { ActivationRuns, StartActivation } from '../../src/activations/runs';
import { createActivationIdentity } from '../../src/activations/identity';
import { loadConfig } from '../../src/config';
import {
  createMockIdentityProvider,
  IdentityInitiationError,
  IdentityProviderUnavailable,
  type IdentityProvider,
} from '../../src/identity/provider';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import type { PendingSignal, SignalSender } from '../../src/workflow-signals/kinds';
import { createWorkflowSignals } from '../../src/workflow-signals/outbox';
import { temporalSignalSender } from '../../src/workflow-signals/temporal';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { executeUpdate } from '../../src/temporal/update';
import {
  activationWorkflowId,
  orderPaidSignal,
  verifyIdentityUpdate,
  type VerifyIdentityInput,
} from '../../workflows/contracts/activation-contract';
import type { TestDatabase } from './db';

export { DEMO } from '../../src/catalog/demo-seed';

let serial = 0;
/** A Luhn-valid mock ICCID, unique per call; `behaviour` picks the mock operator's outcome (e.g. '9004'). */
export function iccid(behaviour = '0000'): string {
  serial += 1;
  return withLuhnDigit(`89${String(process.pid % 1000).padStart(3, '0')}${String(serial).padStart(9, '0')}${behaviour}`);
}

let code = 0;
export function esimCode(matchingId = 'MATCH'): string {
  code += 1;
  return `LPA:1$smdp.example.com$${matchingId}-${process.pid}-${code}`;
}

export async function seedCatalog(db: TestDatabase): Promise<void> {
  await db.sql.transaction((tx) => seedDemoCatalog(tx));
}

/**
 * Records what the API asked of Temporal and of the identity provider: starts (`failStart` makes them
 * fail), verifications started (`refuseVerify`: the provider refuses, or is `unavailable`), and the
 * signals sent to runs (`failSignals` makes them fail, as when Temporal is away).
 */
export function fakeActivationRuns() {
  const started: StartActivation[] = [];
  const verified: Array<{ activationId: string; idNumber: string; idempotencyKey?: string }> = [];
  const signals: PendingSignal[] = [];
  const state = { failStart: false, refuseVerify: undefined as 'refused' | 'unavailable' | undefined, failSignals: false };
  const runs: ActivationRuns = {
    start(a) {
      if (state.failStart) return Promise.reject(new Error('Temporal unavailable'));
      started.push(a);
      return Promise.resolve();
    },
  };
  const transIds = new Map<string, string>();
  const identity: IdentityProvider = {
    initiate({ reference, idNumber, idempotencyKey }) {
      if (state.refuseVerify === 'refused') return Promise.reject(new IdentityInitiationError('refused'));
      if (state.refuseVerify === 'unavailable') return Promise.reject(new IdentityProviderUnavailable());
      verified.push({ activationId: reference, idNumber, idempotencyKey });
      // Idempotent by key, as the provider's contract says.
      const transId = transIds.get(idempotencyKey ?? '') ?? `trans-${verified.length}`;
      if (idempotencyKey) transIds.set(idempotencyKey, transId);
      return Promise.resolve({ transId, randomCode: '42' });
    },
    status: () => Promise.resolve('waiting'),
  };
  const signalSender: SignalSender = (signal) => {
    if (state.failSignals) return Promise.reject(new Error('Temporal unavailable'));
    signals.push(signal);
    return Promise.resolve('signalled');
  };
  return { runs, identity, signalSender, started, verified, signals, state };
}

/**
 * What POST verify-identity does, for a run a workflow test drives: the verification started at the
 * mock provider (outcome by the id number's last digit), recorded, and the run told by its signal.
 */
export async function verifyForRun(
  db: TestDatabase,
  client: Client,
  activationId: string,
  input: VerifyIdentityInput,
  opts: { identity?: IdentityProvider; ttlSeconds?: number } = {},
) {
  const config = loadConfig({ NODE_ENV: 'test' });
  const service = createActivationIdentity({
    db: db.sql,
    identity: opts.identity ?? createMockIdentityProvider({ delayMs: 0 }),
    cipher: createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY),
    signals: createWorkflowSignals({ db: db.sql, send: temporalSignalSender(client, 10_000), logger: { warn: () => undefined } }),
    config: { IDENTITY_REQUEST_TTL_SECONDS: opts.ttlSeconds ?? config.IDENTITY_REQUEST_TTL_SECONDS },
  });
  return service.startForRun(activationId, input);
}

/** A verification the way an API of the previous release starts it: the workflow's update (kept for a deploy's overlap). */
export function verifyByUpdate(client: Client, activationId: string, input: VerifyIdentityInput) {
  return executeUpdate(client.workflow.getHandle(activationWorkflowId(activationId)), verifyIdentityUpdate, { args: [input] });
}

/** An activation's status, identity status and failure reason, as the workflow tests read them. */
export async function activationRow(db: TestDatabase, id: string) {
  const rows = await db.query<{ status: string; identity_status: string; failed_reason: string | null }>(
    'select status, identity_status, failed_reason from activations where id = $1',
    [id],
  );
  return rows[0];
}

export async function orderStatus(db: TestDatabase, id: string): Promise<string> {
  return (await db.query<{ status: string }>('select status from orders where id = $1', [id]))[0].status;
}

/** What settlement does for a paid order, without it: the order row paid, then the workflow's orderPaid signal. */
export async function payOrder(db: TestDatabase, handle: { signal: WorkflowHandle['signal'] }, orderId: string): Promise<void> {
  await db.query(`update orders set status = 'paid' where id = $1`, [orderId]);
  await handle.signal(orderPaidSignal, { paymentId: `pay-${orderId}` });
}
