import type { Logger } from 'pino';
import { endActivation } from '../activations/end';
import { revokeUserSessions } from '../admin';
import { writeAudit } from '../audit/writer';
import type { Config } from '../config';
import type { Db, Sql } from '../db/sql';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import type { PersonalDataCipher } from '../lib/crypto';
import { ACCOUNT_DELETED } from '../entities';
import { failStoreOrder, PAID_OPEN } from '../store/failure';
import { pendingSignal, type EnqueuedSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { erasePersonalData, type ErasureCause, type Requester } from './erasure';
import * as repo from './repository';

export interface AccountDeletionDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  config: Pick<Config, 'RETENTION_DAYS'>;
  /** The runs of what a deletion ends are cancelled through pending signals (their cancellation requests). */
  signals: WorkflowSignals;
  /** The API's session cache forgets the user at once (other instances on the auth_changed notification). */
  evictUser?: (userId: string) => void;
  logger: Pick<Logger, 'warn'>;
}

const DAY_MS = 24 * 3600_000;

/**
 * Account deletion (esim-store spec "Account deletion and compliance"). A request soft-deletes the
 * account in one transaction; the erasure, at retainUntil or earlier by a super_admin, removes the
 * personal data and keeps the money records. Both are audited without the values they remove.
 */
export function createAccountDeletion(deps: AccountDeletionDeps) {
  const { db, cipher, clock } = deps;

  /**
   * Soft-deletes the account inside the caller's transaction, once: deactivated, sessions revoked,
   * identifiers released (kept encrypted as the retained copy), pending activations cancelled, store
   * orders not issued ended (unpaid: expired, their orders cancelled; paid: failed with their refund
   * records), every activation stamped, and their runs' cancellations pending. A company seat frees
   * nothing: its links and entry stay.
   * Codes already sent stay until they expire: one verified now answers AUTH_ACCOUNT_DEACTIVATED, as the
   * spec has sign-in answer a deleted account (a new account on the same phone gets codes of its own).
   */
  async function softDelete(tx: Sql, subject: repo.DeletionSubject, now: Date) {
    const retainUntil = new Date(now.getTime() + deps.config.RETENTION_DAYS * DAY_MS);
    // Revoked before the deactivation, whose trigger would revoke them too, so the audit row counts them.
    const revokedSessions = await revokeUserSessions(tx, subject.id, now);
    await repo.softDeleteUser(tx, subject.id, now, retainUntil);
    const cancelled: string[] = [];
    for (const activationId of await repo.pendingActivationIds(tx, subject.id)) {
      const ended = await endActivation(tx, { activationId, status: 'cancelled', reason: ACCOUNT_DELETED }, now);
      if (ended?.status === 'cancelled') cancelled.push(activationId);
      if (ended?.refund) deps.logger.warn(ended.refund, 'activation cancelled by an account deletion after its order was paid: refund it');
    }
    const failed = await failPaidStoreOrders(tx, subject.id, now);
    const expired = await repo.expireUnpaidStoreOrders(tx, subject.id, now, ACCOUNT_DELETED);
    const runs = [...cancelled.map(activationWorkflowId), ...[...failed, ...expired].map(storeOrderWorkflowId)];
    const cancels = await cancelRuns(tx, runs);
    await repo.stampActivations(tx, subject.id, now, retainUntil);
    const counts = {
      revokedSessions,
      cancelledActivations: cancelled.length,
      expiredStoreOrders: expired.length,
      failedStoreOrders: failed.length,
    };
    return { retainUntil, cancels, counts };
  }

  /**
   * Paid store orders not issued yet end `failed` (ACCOUNT_DELETED) with their refund records: nothing is
   * issued to an account that no longer exists. Every store order of the user is locked first, so a run
   * or a requeue that moved one a moment ago is seen as it left it, and one that comes after sees it failed.
   */
  async function failPaidStoreOrders(tx: Sql, userId: string, now: Date): Promise<string[]> {
    const failed: string[] = [];
    for (const order of await repo.lockStoreOrders(tx, userId)) {
      if (!PAID_OPEN.has(order.status)) continue;
      const ended = await failStoreOrder(tx, order.id, ACCOUNT_DELETED, now);
      if (ended?.changed) failed.push(order.id);
      if (ended?.refund) deps.logger.warn(ended.refund, 'store order failed by an account deletion after it was paid: refund it');
    }
    return failed;
  }

  /**
   * The ended runs' pending starts and signals go (nothing is left for them to do), then each run's
   * cancellation is written: in this order, so the drop keeps it. A run whose start was dropped never
   * starts: its cancellation waits for nothing and finds no run (`closed`). One the API's own attempt
   * starts just after may miss its cancellation: it ends at its deadline, changing nothing (its rows are final).
   */
  async function cancelRuns(tx: Sql, runs: string[]): Promise<EnqueuedSignal[]> {
    await repo.dropPendingStarts(tx, runs);
    const cancels: EnqueuedSignal[] = [];
    for (const run of runs) cancels.push(await deps.signals.enqueue(tx, pendingSignal.cancelRun(run)));
    return cancels;
  }

  /**
   * After commit: the session cache forgets the user, and the runs of what was ended are told to
   * cancel, each its own run's first signal, side by side; what Temporal does not take, the signal relay
   * sends once it answers.
   */
  async function afterCommit(userId: string, cancels: EnqueuedSignal[]): Promise<void> {
    deps.evictUser?.(userId);
    await Promise.all(cancels.map((cancel) => deps.signals.launch([cancel])));
  }

  /** POST /auth/me/deletion-request: the caller's own account. */
  async function request(requester: Requester & { userId: string }) {
    const now = clock();
    const done = await db.transaction(async (tx) => {
      const subject = await repo.lockSubject(tx, requester.userId);
      // The session was live a moment ago; a second request racing this one finds it gone.
      if (!subject || subject.deletionRequestedAt) throw new AppError('AUTH_REQUIRED');
      const deleted = await softDelete(tx, subject, now);
      await writeAudit(tx, {
        action: 'account.deletion_requested',
        actorUserId: requester.userId,
        entityType: 'user',
        entityId: requester.userId,
        details: { retainUntil: deleted.retainUntil.toISOString(), ...deleted.counts },
        ip: requester.ip,
        userAgent: requester.userAgent,
        at: now,
      });
      return deleted;
    });
    await afterCommit(requester.userId, done.cancels);
    return { deletionRequestedAt: now.toISOString(), retainUntil: done.retainUntil.toISOString() };
  }

  /**
   * POST /admin/compliance/users/:id/erase: the erasure (./erasure.ts) now, before retainUntil. An
   * account not deleted yet is soft-deleted first (the law may require an erasure the person did not
   * ask for). Erasing an erased account answers its erasedAt and changes nothing. NOT_FOUND: no such user.
   */
  async function erase(userId: string, cause: ErasureCause): Promise<{ erasedAt: string }> {
    const now = clock();
    const done = await db.transaction(async (tx) => {
      const subject = isUuid(userId) ? await repo.lockSubject(tx, userId) : undefined;
      if (!subject) throw new AppError('NOT_FOUND');
      if (subject.erasedAt) return { erasedAt: subject.erasedAt, cancels: [] };
      const deleted = subject.deletionRequestedAt ? null : await softDelete(tx, subject, now);
      await erasePersonalData(tx, cipher, subject, cause, now, deleted?.counts);
      return { erasedAt: now, cancels: deleted?.cancels ?? [] };
    });
    await afterCommit(userId, done.cancels);
    return { erasedAt: done.erasedAt.toISOString() };
  }

  return { request, erase };
}

export type AccountDeletion = ReturnType<typeof createAccountDeletion>;
