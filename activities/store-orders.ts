import { ApplicationFailure, log } from '@temporalio/activity';
import type { Db, Sql } from '../src/db/sql';
import type { StoreOrderStatus } from '../src/entities/store';
import type { PersonalDataCipher } from '../src/lib/crypto';
import { handOver } from '../src/messages/repository';
import { renderEmail } from '../src/providers/templates';
import type { OutgoingMessage } from '../src/providers/messages';
import { flagRefund } from '../src/reconciliation/records';
import * as repo from '../src/store/order-repository';
import {
  StoreProviderRejection,
  type EsimProfile,
  type PlacedOrder,
  type ProviderOrder,
  type StoreProviderRegistry,
} from '../src/store/providers/plugin';
import { STORE_ORDER_MISSING, STORE_PROVIDER_REJECTION, type ProviderOutcome } from '../workflows/store-order-contract';

export interface StoreOrderActivityDeps {
  db: Db;
  storeProviders: StoreProviderRegistry;
  cipher: PersonalDataCipher;
  clock?: () => Date;
}

/** The QR e-mail's outbox purpose (subject in src/providers/templates.ts). */
export const STORE_QR_EMAIL_PURPOSE = 'esim.qr';
/** How long the message relay keeps trying to deliver a QR e-mail. */
const QR_EMAIL_LIFE_MS = 7 * 24 * 3_600_000;

/** Statuses after which no placement or callback changes anything. */
const FINAL = new Set<StoreOrderStatus>(['issued', 'expired']);

const missing = (orderId: string) => ApplicationFailure.nonRetryable(`store order ${orderId} not found`, STORE_ORDER_MISSING);

/**
 * Activities of the store order workflow. Each writes Postgres in one transaction and is idempotent: a
 * retry after a crash changes nothing twice. None returns or logs the profile: the activation code is
 * stored encrypted and reaches neither workflow history nor a log line.
 */
export function createStoreOrderActivities(deps: StoreOrderActivityDeps) {
  const { db, cipher } = deps;
  const clock = deps.clock ?? (() => new Date());

  async function load(orderId: string): Promise<repo.RunStoreOrder> {
    const row = await repo.findRunStoreOrder(db, orderId);
    if (!row) throw missing(orderId);
    return row;
  }

  function pluginFor(slug: string) {
    const plugin = deps.storeProviders.get(slug);
    // No plugin for the row's slug (configuration changed): retried until the deadline, then failed.
    if (!plugin) throw new Error(`no store provider plugin is registered for ${slug}`);
    return plugin;
  }

  /**
   * `issued`, final, in one transaction: the encrypted profile, and the QR e-mail handed to the message
   * outbox (the worker's message relay sends it). Only the transaction that makes the order `issued`
   * writes the e-mail, so it is queued exactly once whatever retries, callbacks and polls race here.
   */
  async function issue(orderId: string, profile: EsimProfile): Promise<ProviderOutcome> {
    const now = clock();
    const issued = await db.transaction(async (tx) => {
      // Lock order: the store order and its orders row (as the payment's completion takes the orders row).
      const row = await repo.lockRunStoreOrder(tx, orderId);
      if (!row) throw missing(orderId);
      if (row.status === 'issued') return false;
      if (!(await repo.issueStoreOrder(tx, orderId, cipher.encrypt(JSON.stringify(profile)), now))) return false;
      await queueQrEmail(tx, orderId, profile);
      return true;
    });
    if (issued) log.info('store order issued', { orderId });
    return { status: 'issued' };
  }

  async function queueQrEmail(tx: Sql, orderId: string, profile: EsimProfile): Promise<void> {
    const emailEncrypted = await repo.findBuyerEmail(tx, orderId);
    if (!emailEncrypted) {
      log.warn('store order issued to an account without an e-mail: no QR e-mail', { orderId });
      return;
    }
    const message: OutgoingMessage = {
      channel: 'email',
      to: cipher.decrypt(emailEncrypted),
      purpose: STORE_QR_EMAIL_PURPOSE,
      text: '',
      content: { kind: 'esim_ready', activationCode: profile.activationCodeRaw },
    };
    // The development file shows what the real senders deliver: both languages (the code as text; SMTP adds the QR image).
    message.text = renderEmail(message).text;
    await handOver(tx, {
      message,
      payloadEncrypted: cipher.encrypt(JSON.stringify(message)),
      recipientHash: cipher.lookupHash(message.to),
      expiresInMs: QR_EMAIL_LIFE_MS,
      attempts: 0,
      lastError: '',
    });
  }

  async function awaiting(orderId: string): Promise<ProviderOutcome> {
    await db.transaction(async (tx) => {
      const row = await repo.lockRunStoreOrder(tx, orderId);
      if (row && !FINAL.has(row.status) && row.status !== 'awaiting_provider') {
        await repo.setStoreOrderStatus(tx, orderId, { status: 'awaiting_provider', now: clock() });
      }
    });
    return { status: 'pending' };
  }

  /** A provider's answer (placement or order read) as the workflow's outcome; the profile goes to the row, never back. */
  async function apply(orderId: string, answer: PlacedOrder | ProviderOrder): Promise<ProviderOutcome> {
    if (answer.status === 'issued') return issue(orderId, answer.profile);
    if (answer.status === 'pending') return awaiting(orderId);
    if (answer.status === 'failed') return { status: 'failed', reason: answer.reason.slice(0, 255) };
    return { status: 'pending' };
  }

  async function place(row: repo.RunStoreOrder): Promise<ProviderOutcome> {
    let placed: PlacedOrder;
    try {
      placed = await pluginFor(row.providerSlug).placeOrder(row.id, row.sku);
    } catch (err) {
      if (err instanceof StoreProviderRejection) throw ApplicationFailure.nonRetryable(err.reason, STORE_PROVIDER_REJECTION);
      throw err;
    }
    return apply(row.id, placed);
  }

  return {
    /** The safety net for a lost "paid" signal: whether the order's payment completed. */
    async isStoreOrderPaid(input: { orderId: string }): Promise<boolean> {
      const row = await load(input.orderId);
      return row.status !== 'pending_payment' && row.status !== 'expired';
    },

    /** Unpaid at its TTL: `expired` and its orders row cancelled (no payment can start), unless it was paid meanwhile. */
    async expireStoreOrder(input: { orderId: string }): Promise<{ expired: boolean }> {
      return db.transaction(async (tx) => {
        const row = await repo.lockRunStoreOrder(tx, input.orderId);
        if (!row) throw missing(input.orderId);
        if (row.status === 'expired') return { expired: true };
        if (row.status !== 'pending_payment' || row.orderStatus !== 'pending_payment') return { expired: false };
        const now = clock();
        await repo.setStoreOrderStatus(tx, input.orderId, { status: 'expired', now });
        await repo.cancelOrderRow(tx, input.orderId, now);
        log.info('store order expired unpaid', { orderId: input.orderId });
        return { expired: true };
      });
    },

    /**
     * The order moves to `provisioning` (from `paid`, or on a requeue from any status but issued, unpaid or
     * expired) with the delivery deadline the run computed. Answers the status afterwards.
     */
    async beginProvisioning(input: { orderId: string; requeue: boolean; deliverByMs: number }): Promise<{ status: StoreOrderStatus }> {
      return db.transaction(async (tx) => {
        const row = await repo.lockRunStoreOrder(tx, input.orderId);
        if (!row) throw missing(input.orderId);
        const movable =
          row.status === 'paid' ||
          row.status === 'provisioning' ||
          (input.requeue && row.status !== 'issued' && row.status !== 'pending_payment' && row.status !== 'expired');
        if (!movable) return { status: row.status };
        await repo.setStoreOrderStatus(tx, input.orderId, { status: 'provisioning', now: clock(), deliverBy: new Date(input.deliverByMs) });
        return { status: 'provisioning' as const };
      });
    },

    /** Places the order with its provider (idempotent: the order id is the provider's reference). */
    async placeStoreOrder(input: { orderId: string }): Promise<ProviderOutcome> {
      const row = await load(input.orderId);
      if (row.status === 'issued') return { status: 'issued' };
      return place(row);
    },

    /**
     * Read-only reconciliation after a callback or at a poll: the provider's own view of the order (a
     * callback's body is never trusted). An order the provider does not know is placed again (idempotent).
     */
    async reconcileStoreOrder(input: { orderId: string }): Promise<ProviderOutcome> {
      const row = await load(input.orderId);
      if (row.status === 'issued') return { status: 'issued' };
      const answer = await pluginFor(row.providerSlug).getOrder(row.id);
      if (answer.status === 'not_found') return place(row);
      return apply(row.id, answer);
    },

    /**
     * `failed` with its reason and, in the same transaction, the reconciliation record of the payment
     * (paid, not issued: refund due). An order issued meanwhile stays issued (answered as such).
     */
    async failStoreOrder(input: { orderId: string; reason: string }): Promise<{ status: StoreOrderStatus }> {
      return db.transaction(async (tx) => {
        const row = await repo.lockRunStoreOrder(tx, input.orderId);
        if (!row) throw missing(input.orderId);
        if (FINAL.has(row.status)) return { status: row.status };
        const now = clock();
        await repo.setStoreOrderStatus(tx, input.orderId, { status: 'failed', now, failureReason: input.reason.slice(0, 255) });
        const flagged = row.paymentId
          ? await flagRefund(tx, { paymentId: row.paymentId, reason: `store order failed: ${input.reason}`, now })
          : null;
        log.warn('store order failed: paid, not issued, refund due', {
          orderId: input.orderId,
          reason: input.reason,
          flagged: Boolean(flagged),
        });
        return { status: 'failed' as const };
      });
    },
  };
}

export type StoreOrderActivities = ReturnType<typeof createStoreOrderActivities>;
