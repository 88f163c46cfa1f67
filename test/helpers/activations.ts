import { seedDemoCatalog } from '../../src/catalog/demo-seed';
import { withLuhnDigit } from '../../src/operators/mock';
import type { ErrorCode } from '../../src/http/error-codes';
import { AppError } from '../../src/http/errors';
import type { ActivationRuns, StartActivation } from '../../src/activations/runs';
import type { WorkflowHandle } from '@temporalio/client';
import { orderPaidSignal } from '../../workflows/activation-contract';
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

/** Records what the API asked of Temporal; `fail` makes starts fail. */
export function fakeActivationRuns() {
  const started: StartActivation[] = [];
  const verified: Array<{ activationId: string; idNumber: string }> = [];
  const state = { failStart: false, refuseVerify: undefined as ErrorCode | undefined };
  const runs: ActivationRuns = {
    start(a) {
      if (state.failStart) return Promise.reject(new Error('Temporal unavailable'));
      started.push(a);
      return Promise.resolve();
    },
    verifyIdentity(activationId, input) {
      // What the real client answers when the workflow refuses with a spec code (src/temporal/update.ts).
      if (state.refuseVerify) return Promise.reject(new AppError(state.refuseVerify, { message: 'refused' }));
      verified.push({ activationId, idNumber: input.idNumber });
      return Promise.resolve({ transId: `trans-${verified.length}`, randomCode: '42', status: 'waiting' });
    },
    async orderPaid() {},
  };
  return { runs, started, verified, state };
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
