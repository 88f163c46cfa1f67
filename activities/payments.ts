import { ApplicationFailure, log } from '@temporalio/activity';
import type { Db, Sql } from '../src/db/sql';
import type { PaymentStatus } from '../src/entities/payment';
import { fromMinorUnits } from '../src/lib/money';
import type { PaymentProvider } from '../src/payments/providers';
import type { ProviderIntent } from '../src/payments/providers';
import * as repo from '../src/payments/repository';
import type { SettlementPayment } from '../src/payments/repository';
import { completePayment } from '../src/payments/settle';
import type { StoreOrderPayments } from '../src/payments/store-orders';
import { AMOUNT_MISMATCH, recordMismatch, verifySucceededIntent } from '../src/payments/verify';
import { flagRefund, PAID_AFTER_ORDER_CANCELLED } from '../src/payments/refunds';
import { writeReconciliationRecord } from '../src/reconciliation/records';
import { PAYMENT_NOT_FOUND } from '../workflows/contracts/settlement-contract';

export interface PaymentActivityDeps {
  db: Db;
  /**
   * The processor: asked about an intent when a payment hears nothing (reconciliation), and told to
   * cancel the open intents of an order that was cancelled. The worker hands in the whole provider;
   * without `name` and `cancelIntent` (fakes of settlement-only tests) intents are left to settlement.
   */
  paymentProvider: Pick<PaymentProvider, 'retrieveIntent'> & Partial<Pick<PaymentProvider, 'name' | 'cancelIntent'>>;
  /** The store's face: a completed payment marks its store order `paid`. */
  storeOrderPayments: Pick<StoreOrderPayments, 'markPaid'>;
  clock?: () => Date;
}

/** What a settlement step leaves behind, for the workflow. */
export interface SettlementResult {
  /** `open`: the processor has no final answer yet. */
  status: 'completed' | 'failed' | 'open';
  activationId: string | null;
  /** True for exactly one workflow run per payment: the run that must signal the activation (or the store order). */
  signalActivation: boolean;
  /** The store order the payment paid (signalled like an activation); absent otherwise. */
  storeOrderId?: string | null;
}

/** Reconciliation code (structured log and record) of a second charge for an order already paid. */
export const DUPLICATE_CHARGE = 'PAYMENT_DUPLICATE_CHARGE';
/** failure_reason of a payment whose intent we cancelled because its order was cancelled. */
export const ORDER_CANCELLED = 'order_cancelled';

const notFound = (paymentId: string) => ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, PAYMENT_NOT_FOUND);

/**
 * Activities of the settlement workflow. Each writes Postgres in one
 * transaction and is idempotent: a retry after a crash changes nothing twice.
 */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  const { db } = deps;
  const clock = deps.clock ?? (() => new Date());

  async function load(paymentId: string): Promise<SettlementPayment> {
    const row = await repo.findSettlementPayment(db, paymentId);
    if (!row) throw notFound(paymentId);
    return row;
  }

  /**
   * Completes the payment (receipt number, order paid) and claims the right to
   * signal the activation for this run: a `settlement:<paymentId>` receipt in
   * webhook_events names the first run that settled it, so a retried activity
   * still signals and a later duplicate run does not.
   */
  async function settle(paymentId: string, runId: string, source: string): Promise<SettlementResult> {
    return db.transaction(async (tx) => {
      const now = clock();
      const order = await repo.lockOrderForSettlement(tx, paymentId);
      if (!order) throw notFound(paymentId);
      const settled = await completePayment(tx, paymentId, now, deps.storeOrderPayments);
      if (!settled) throw notFound(paymentId);
      const status = await repo.findPaymentStatus(tx, paymentId);
      if (status !== 'completed') return { status: 'failed', activationId: null, signalActivation: false }; // refunded
      const receipt = `settlement:${paymentId}`;
      await repo.insertPaymentEvent(tx, {
        eventId: receipt,
        type: 'payment.settled',
        paymentId,
        outcome: 'settled',
        detail: { runId, source },
        now,
      });
      const claimedBy = await repo.findSettlementRun(tx, receipt);
      if (settled.changed) log.info('payment completed', { paymentId, orderId: settled.orderId, source });
      if (order.paidByPaymentId) {
        // The processor took the money, so the payment is completed; the order was paid already,
        // so nothing else moves and support refunds it from the record.
        if (settled.changed) await recordDuplicateCharge(tx, paymentId, order.orderId, order.paidByPaymentId, now);
        return { status: 'completed', activationId: null, signalActivation: false };
      }
      if (settled.orderStatus === 'cancelled') {
        // The order was cancelled (its activation ended) before this success: the money was taken for
        // nothing. The order stays cancelled, the activation is not woken, support refunds it.
        const flagged = await flagRefund(tx, { paymentId, reason: PAID_AFTER_ORDER_CANCELLED, now });
        if (flagged) log.warn('payment succeeded after its order was cancelled: refund it', { ...flagged, source });
        return { status: 'completed', activationId: null, signalActivation: false };
      }
      return {
        status: 'completed',
        activationId: settled.activationId,
        storeOrderId: settled.storeOrderId,
        signalActivation: claimedBy === runId,
      };
    });
  }

  async function recordDuplicateCharge(tx: Sql, paymentId: string, orderId: string, paidByPaymentId: string, now: Date) {
    const detail = { code: DUPLICATE_CHARGE, orderId, paidByPaymentId };
    await repo.insertPaymentEvent(tx, {
      eventId: `duplicate:${paymentId}`,
      type: 'payment.duplicate_charge',
      paymentId,
      outcome: 'duplicate_charge',
      detail,
      now,
    });
    const payment = await repo.findSettlementPayment(tx, paymentId);
    await writeReconciliationRecord(tx, {
      code: DUPLICATE_CHARGE,
      key: `duplicate:${paymentId}`,
      paymentId,
      orderId,
      activationId: await repo.findActivationOfOrder(tx, orderId),
      reason: 'ORDER_ALREADY_PAID',
      detail: {
        paidByPaymentId,
        amount: payment && fromMinorUnits(payment.amountMinor, payment.currency),
        currency: payment?.currency,
        gatewayTransactionId: payment?.gatewayTransactionId,
      },
      now,
    });
    log.warn('second charge for an order already paid: refund it', { paymentId, ...detail });
  }

  async function fail(paymentId: string, reason: string): Promise<PaymentStatus> {
    return db.transaction(async (tx) => {
      const changed = await repo.failPayment(tx, paymentId, reason, clock());
      const status = await repo.findPaymentStatus(tx, paymentId);
      if (!status) throw notFound(paymentId);
      if (changed) log.info('payment failed', { paymentId, reason });
      return status;
    });
  }

  return {
    /** A verified `payment_intent.succeeded`: complete the payment (idempotent). */
    async settlePayment(input: { paymentId: string; eventId: string; runId: string }): Promise<SettlementResult> {
      return settle(input.paymentId, input.runId, input.eventId);
    },

    /** `payment_failed` / `canceled`: fail the payment if still open; a completed one is never downgraded. */
    async failPayment(input: { paymentId: string; reason: string }): Promise<{ status: PaymentStatus }> {
      return { status: await fail(input.paymentId, input.reason) };
    },

    /**
     * The payment heard nothing: ask the processor about the intent and settle
     * from its answer, with the same four-rule verification as the webhook.
     */
    async lookupIntent(input: { paymentId: string; runId: string }): Promise<SettlementResult> {
      const row = await load(input.paymentId);
      const open: SettlementResult = { status: 'open', activationId: null, signalActivation: false };
      if (row.status === 'completed') return settle(row.id, input.runId, 'lookup');
      // Failed here means a mismatch was recorded while we waited (events end the run themselves).
      if (row.status === 'failed' || row.status === 'refunded') return { ...open, status: 'failed' };
      if (!row.gatewayTransactionId) {
        log.warn('payment has no processor intent to look up', { paymentId: row.id });
        return open;
      }
      const intent = await deps.paymentProvider.retrieveIntent(row.gatewayTransactionId);
      if (!intent) {
        log.warn('processor does not know the intent', { paymentId: row.id, intentId: row.gatewayTransactionId });
        return open;
      }
      if (intent.status === 'canceled') {
        const status = await fail(row.id, 'payment_intent.canceled');
        return status === 'completed' ? settle(row.id, input.runId, 'lookup') : { ...open, status: 'failed' };
      }
      if (intent.status !== 'succeeded') return open;
      return settleFromIntent(row, intent, input.runId, 'lookup');
    },

    /**
     * The activation ended (its order cancelled, or failed): cancel the order's open intents at the
     * processor, so nothing more is charged for it. A cancelled (or unknown) intent fails its payment;
     * one that succeeded meanwhile (the cancel raced the customer's confirmation) is settled as the
     * processor says, which flags it for refund (the order stays cancelled); one the processor cannot
     * cancel any more is left to its settlement run, which does the same when it succeeds.
     */
    async cancelOpenIntents(input: {
      activationId: string;
      runId: string;
    }): Promise<{ cancelled: number; succeeded: number; left: number }> {
      const counts = { cancelled: 0, succeeded: 0, left: 0 };
      const provider = deps.paymentProvider;
      // Never for a live activation: only an activation that failed or was cancelled has intents to cancel.
      const rows = await repo.openIntentsOfEndedActivation(db, input.activationId);
      for (const row of rows) {
        if (!provider.cancelIntent || provider.name !== row.provider) {
          log.warn('open intent of an ended activation left to settlement: this worker cannot cancel it', {
            paymentId: row.id,
            provider: row.provider,
          });
          counts.left += 1;
          continue;
        }
        const intent = await provider.cancelIntent(row.gatewayTransactionId!);
        if (intent?.status === 'succeeded') {
          await settleFromIntent(row, intent, input.runId, 'cancel');
          counts.succeeded += 1;
        } else if (!intent || intent.status === 'canceled') {
          await fail(row.id, ORDER_CANCELLED);
          counts.cancelled += 1;
        } else {
          log.info('processor could not cancel the intent; its settlement run settles it', {
            paymentId: row.id,
            intentStatus: intent.status,
          });
          counts.left += 1;
        }
      }
      if (rows.length > 0) log.info('open intents of an ended activation', { activationId: input.activationId, ...counts });
      return counts;
    },
  };

  /** A succeeded intent from the processor: settle it when it passes the four rules, else record the mismatch. */
  async function settleFromIntent(
    row: SettlementPayment,
    intent: ProviderIntent,
    runId: string,
    source: 'lookup' | 'cancel',
  ): Promise<SettlementResult> {
    const verification = verifySucceededIntent(row, intent);
    if (verification.ok) return settle(row.id, runId, source);

    const { paymentFailed } = await recordMismatch(db, {
      paymentId: row.id,
      eventId: `${source}:${intent.id}`,
      eventType: `payment_intent.${source}`,
      intentId: intent.id,
      mismatches: verification.mismatches,
      now: clock(),
    });
    log.warn('processor intent does not match the stored payment', {
      code: AMOUNT_MISMATCH,
      paymentId: row.id,
      intentId: intent.id,
      mismatches: verification.mismatches,
      paymentFailed,
    });
    return { status: 'failed', activationId: null, signalActivation: false };
  }
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
