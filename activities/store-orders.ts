import { ApplicationFailure, log } from '@temporalio/activity';
import type { Db, Sql } from '../src/db/sql';
import type { StoreOrderStatus } from '../src/entities/store';
import type { PersonalDataCipher } from '../src/lib/crypto';
import { handOver } from '../src/messages';
import { renderEmail } from '../src/providers/templates';
import type { OutgoingMessage } from '../src/providers/messages';
import { ACCOUNT_DELETED } from '../src/entities';
import { failStoreOrder, PAID_OPEN, reopenFailed } from '../src/store/failure';
import * as repo from '../src/store/order-repository';
import {
  StoreProviderRejection,
  type EsimProfile,
  type PlacedOrder,
  type ProviderOrder,
  type StoreProviderRegistry,
} from '../src/store/providers/plugin';
import { STORE_ORDER_MISSING, STORE_PROVIDER_REJECTION, type ProviderOutcome } from '../workflows/contracts/store-order-contract';

export interface StoreOrderActivityDeps {
  db: Db;
  storeProviders: Pick<StoreProviderRegistry, 'get'>;
  cipher: Pick<PersonalDataCipher, 'encrypt' | 'decrypt' | 'lookupHash'>;
  clock?: () => Date;
}

/** The QR e-mail's outbox purpose (subject in src/providers/templates.ts). */
export const STORE_QR_EMAIL_PURPOSE = 'esim.qr';
/** How long the message relay keeps trying to deliver a QR e-mail. */
const QR_EMAIL_LIFE_MS = 7 * 24 * 3_600_000;

/** What the workflow is told of an order that is no longer going (issued, or ended without a profile): no provider answer changes it. */
function endedOutcome(row: Pick<repo.RunStoreOrder, 'status' | 'failureReason'>): ProviderOutcome {
  if (row.status === 'issued') return { status: 'issued' };
  return { status: 'failed', reason: row.failureReason ?? row.status };
}

/** An order the buyer's account deletion failed: its provider order is withdrawn where the partner allows it. */
const withdrawable = (row: Pick<repo.RunStoreOrder, 'status' | 'failureReason'>) =>
  row.status === 'failed' && row.failureReason === ACCOUNT_DELETED;

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
   * Withdraws the order at its provider, where the plugin can (the partner API may not: the refund record
   * tells support). Never throws: the order is failed already, and this only saves the provider's charge.
   */
  async function withdraw(row: repo.RunStoreOrder): Promise<void> {
    const plugin = deps.storeProviders.get(row.providerSlug);
    if (!plugin?.cancelOrder) {
      log.warn('store order failed for a deleted account; its provider cannot cancel orders: support settles it', { orderId: row.id });
      return;
    }
    try {
      const answer = await plugin.cancelOrder(row.id);
      log.info('store order withdrawn at its provider after the account was deleted', { orderId: row.id, answer: answer.status });
    } catch (err) {
      log.warn('store order could not be withdrawn at its provider: support settles it', { orderId: row.id, error: String(err) });
    }
  }

  /** A provider answer for an order that ended meanwhile changes nothing; one a deletion failed is withdrawn again (it may be newly placed). */
  async function answeredTooLate(row: repo.RunStoreOrder): Promise<ProviderOutcome> {
    if (withdrawable(row)) await withdraw(row);
    return endedOutcome(row);
  }

  /**
   * `issued`, final, in one transaction: the encrypted profile, and the QR e-mail handed to the message
   * outbox (the worker's message relay sends it). Only the transaction that makes a paid order still
   * going `issued` writes the e-mail, so it is queued exactly once whatever retries, callbacks and polls
   * race here, and never for an order that ended meanwhile (a deleted account's is failed: no profile kept).
   */
  async function issue(orderId: string, profile: EsimProfile): Promise<ProviderOutcome> {
    const now = clock();
    const ended = await db.transaction(async (tx) => {
      // Lock order: the store order and its orders row (as the payment's completion takes the orders row).
      const row = await repo.lockRunStoreOrder(tx, orderId);
      if (!row) throw missing(orderId);
      if (!PAID_OPEN.has(row.status)) return row;
      await repo.issueStoreOrder(tx, orderId, cipher.encrypt(JSON.stringify(profile)), now);
      await queueQrEmail(tx, orderId, profile);
      return null;
    });
    if (ended) return answeredTooLate(ended);
    log.info('store order issued', { orderId });
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
    const ended = await db.transaction(async (tx) => {
      const row = await repo.lockRunStoreOrder(tx, orderId);
      if (!row) throw missing(orderId);
      if (!PAID_OPEN.has(row.status)) return row;
      if (row.status !== 'awaiting_provider') await repo.setStoreOrderStatus(tx, orderId, { status: 'awaiting_provider', now: clock() });
      return null;
    });
    return ended ? answeredTooLate(ended) : { status: 'pending' };
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
     * The order moves to `provisioning` (from `paid`, or on a requeue from any paid status without a
     * profile) with the delivery deadline the run computed. From `failed` only as the staff's requeue may
     * (src/store/failure.ts: never for a deleted account or a refunded order; the refund record closes).
     * Answers the status afterwards.
     */
    async beginProvisioning(input: { orderId: string; requeue: boolean; deliverByMs: number }): Promise<{ status: StoreOrderStatus }> {
      return db.transaction(async (tx) => {
        const row = await repo.lockRunStoreOrder(tx, input.orderId);
        if (!row) throw missing(input.orderId);
        const now = clock();
        const movable =
          row.status === 'paid' ||
          row.status === 'provisioning' ||
          (input.requeue &&
            (PAID_OPEN.has(row.status) || (row.status === 'failed' && 'closed' in (await reopenFailed(tx, row, { by: null, now })))));
        if (!movable) return { status: row.status };
        const deliverBy = new Date(input.deliverByMs);
        await repo.setStoreOrderStatus(tx, input.orderId, { status: 'provisioning', now, deliverBy, requeued: row.status === 'failed' });
        return { status: 'provisioning' as const };
      });
    },

    /** Places the order with its provider (idempotent: the order id is the provider's reference); not one that ended meanwhile. */
    async placeStoreOrder(input: { orderId: string }): Promise<ProviderOutcome> {
      const row = await load(input.orderId);
      if (!PAID_OPEN.has(row.status)) return endedOutcome(row);
      return place(row);
    },

    /**
     * Read-only reconciliation after a callback or at a poll: the provider's own view of the order (a
     * callback's body is never trusted). An order the provider does not know is placed again (idempotent).
     */
    async reconcileStoreOrder(input: { orderId: string }): Promise<ProviderOutcome> {
      const row = await load(input.orderId);
      if (!PAID_OPEN.has(row.status)) return endedOutcome(row);
      const answer = await pluginFor(row.providerSlug).getOrder(row.id);
      if (answer.status === 'not_found') return place(row);
      return apply(row.id, answer);
    },

    /**
     * `failed` with its reason and, in the same transaction, the reconciliation record of the payment
     * (paid, not issued: refund due). An order that ended meanwhile (issued, or failed by the buyer's
     * account deletion) stays as it is, answered as such.
     */
    async failStoreOrder(input: { orderId: string; reason: string }): Promise<{ status: StoreOrderStatus }> {
      return db.transaction(async (tx) => {
        const ended = await failStoreOrder(tx, input.orderId, input.reason, clock());
        if (!ended) throw missing(input.orderId);
        if (ended.changed) {
          log.warn('store order failed: paid, not issued, refund due', {
            orderId: input.orderId,
            reason: input.reason,
            flagged: Boolean(ended.refund),
          });
        }
        return { status: ended.status };
      });
    },

    /** The run is cancelled (the buyer's account was deleted): an order the deletion failed is withdrawn at its provider. */
    async withdrawStoreOrder(input: { orderId: string }): Promise<void> {
      const row = await load(input.orderId);
      if (withdrawable(row)) await withdraw(row);
    },
  };
}

export type StoreOrderActivities = ReturnType<typeof createStoreOrderActivities>;
