import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { Db, Sql } from '../src/db/sql';
import type { ActivationStatus, EsimProfile, IdentityStatus } from '../src/entities/activation';
import type { IdentityType } from '../src/entities/user';
import { IdentityInitiationError, type IdentityProvider } from '../src/identity/provider';
import type { PersonalDataCipher } from '../src/lib/crypto';
import { parseActivationCode } from '../src/operators/esim-code';
import { OperatorRejection, type OperatorRegistry } from '../src/operators/plugin';
import { MessageDeliveryError, type MessageSender } from '../src/providers/messages';
import * as repo from '../src/activations/repository';
import { lockHolder, SIM_LIMIT_EXCEEDED, SIM_LIMITS, type SimHolder } from '../src/activations/sim-limit';
import { endActivation, type EndActivation } from '../src/activations/end';
import {
  activationWorkflowId,
  IDENTITY_ERROR,
  IDENTITY_PROVIDER_UNAVAILABLE,
  OPERATOR_REJECTION,
  type ActivationEnd,
  type SimLimitVerdict,
} from '../workflows/contracts/activation-contract';

/** What the activation's activities use, and nothing more (the worker hands in the whole of each). */
export interface ActivationActivityDeps {
  db: Db;
  operators: Pick<OperatorRegistry, 'get'>;
  identity: IdentityProvider;
  cipher: Pick<PersonalDataCipher, 'encrypt' | 'decrypt' | 'lookupHash'>;
  messages: MessageSender;
  clock?: () => Date;
}

/** Rough time to activation per status, for clients that show a progress hint. */
export const ESTIMATED_SECONDS: Record<ActivationStatus, number | null> = {
  pending: null,
  in_progress: 120,
  activated: 0,
  failed: null,
  cancelled: null,
};

/**
 * Heartbeats while a provider call runs (an operator handoff, an identity initiation). Operator calls
 * may take minutes (startToClose is long), but a worker that dies mid-call is noticed after the short
 * heartbeat timeout and the call is retried on another worker; the provider deduplicates by the
 * idempotency key.
 */
async function heartbeating<T>(work: Promise<T>): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work;
  const timer = setInterval(() => context.heartbeat(), Math.max(200, timeoutMs / 3));
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

const WITHIN_LIMIT: SimLimitVerdict = { withinLimit: true };

/** Whose SIMs an activation counts against: its verified identity (its account only for a row without one). */
const holderOf = (row: { userId: string; idNumberHash: string | null }): SimHolder =>
  row.idNumberHash ? { idNumberHash: row.idNumberHash } : { userId: row.userId };
export type { EndActivation } from '../src/activations/end';

/**
 * Activities of the activation workflow. Each writes Postgres in one statement
 * or transaction and is idempotent: re-running one after a crash changes
 * nothing twice. Provider refusals become non-retryable failures.
 */
export function createActivationActivities(deps: ActivationActivityDeps) {
  const { db, operators, cipher } = deps;
  const clock = deps.clock ?? (() => new Date());

  async function load(activationId: string): Promise<repo.RunActivation> {
    const row = await repo.findRunActivation(db, activationId);
    if (!row) throw ApplicationFailure.nonRetryable(`activation ${activationId} not found`, 'ActivationNotFound');
    return row;
  }

  /**
   * An activation that already ended (failed over the SIM limit by a gate while a run recorded
   * before the gates heads for the handoff) is never handed to the operator.
   */
  function refuseEnded(row: repo.RunActivation): void {
    if (row.status === 'failed' || row.status === 'cancelled') {
      throw ApplicationFailure.nonRetryable(`activation is ${row.status}`, OPERATOR_REJECTION);
    }
  }

  function pluginFor(slug: string) {
    const plugin = operators.get(slug);
    if (!plugin) throw ApplicationFailure.nonRetryable(`no operator plugin for ${slug}`, OPERATOR_REJECTION);
    return plugin;
  }

  return {
    /**
     * Starts a verification at the provider. Every failure is final (non-retryable): a refusal is
     * IDENTITY_ERROR, anything else IDENTITY_PROVIDER_UNAVAILABLE; only a timeout (a lost worker stops
     * heartbeating) is retried by the workflow, with the same idempotency key, so the provider hands back
     * the transaction the lost attempt may have started.
     */
    async initiateIdentity(input: { activationId: string; identityType: IdentityType; idNumber: string }) {
      const { info } = Context.current();
      let started;
      try {
        started = await heartbeating(
          deps.identity.initiate({
            idNumber: input.idNumber,
            identityType: input.identityType,
            reference: input.activationId,
            idempotencyKey: `${activationWorkflowId(input.activationId)}:${info.workflowExecution?.runId ?? ''}:${info.activityId}`,
          }),
        );
      } catch (err) {
        if (err instanceof IdentityInitiationError) throw ApplicationFailure.nonRetryable(err.message, IDENTITY_ERROR);
        const message = err instanceof Error ? err.message : String(err);
        throw ApplicationFailure.nonRetryable(message, IDENTITY_PROVIDER_UNAVAILABLE);
      }
      await repo.recordIdentityStart(db, {
        activationId: input.activationId,
        transId: started.transId,
        identityType: input.identityType,
        idNumberEncrypted: cipher.encrypt(input.idNumber),
        idNumberHash: cipher.lookupHash(input.idNumber),
        now: clock(),
      });
      return started;
    },

    /** The order row is the truth about payment; the signal is only the fast path. */
    async isOrderPaid(input: { activationId: string }): Promise<boolean> {
      const status = await repo.findOrderStatus(db, input.activationId);
      return status === 'paid' || status === 'completed';
    },

    async pollIdentity(input: { transId: string }): Promise<IdentityStatus> {
      return deps.identity.status(input.transId);
    },

    /**
     * Only the verification that is still current may write its outcome. A completed one proves the
     * person's identity and its type, which sets their SIM limit; under the lock on that identity it is
     * checked against the identity's other verified activations on any account (gate 2 in
     * src/activations/sim-limit.ts), and over the limit this activation fails.
     */
    async recordIdentityStatus(input: { activationId: string; transId: string; identityStatus: IdentityStatus }): Promise<SimLimitVerdict> {
      return db.transaction(async (tx) => {
        const now = clock();
        const row = await repo.findCurrentVerification(tx, input.activationId, input.transId);
        if (!row) return WITHIN_LIMIT; // superseded by a newer verification: nothing to write
        const holder = holderOf(row);
        if (input.identityStatus === 'completed') await lockHolder(tx, holder);
        await repo.recordIdentityStatus(tx, {
          activationId: input.activationId,
          transId: input.transId,
          identityStatus: input.identityStatus,
          verifiedAt: input.identityStatus === 'completed' ? now : null,
          now,
        });
        if (input.identityStatus !== 'completed' || !row.identityType) return WITHIN_LIMIT;
        await repo.setPersonIdentityType(tx, row.userId, row.identityType, now);
        if ((await repo.verifiedOthers(tx, holder, input.activationId)) < SIM_LIMITS[row.identityType]) return WITHIN_LIMIT;
        return refuseOverLimit(tx, input.activationId);
      });
    },

    /**
     * The handoff starts: under the lock on the verified identity, the SIMs it already has handed to the
     * operator, on any account, must leave room for this one (gate 3), then the activation moves to
     * `in_progress`. Idempotent: a retry after the move finds it done.
     */
    async startHandoff(input: { activationId: string }): Promise<SimLimitVerdict> {
      return db.transaction(async (tx) => {
        const owner = await repo.findOwner(tx, input.activationId);
        if (!owner) throw ApplicationFailure.nonRetryable(`activation ${input.activationId} not found`, 'ActivationNotFound');
        const holder = holderOf(owner);
        await lockHolder(tx, holder);
        // Read under the lock: a gate of another run may have ended it meanwhile.
        const row = (await repo.findHandoffState(tx, input.activationId))!;
        if (row.status === 'in_progress' || row.status === 'activated') return WITHIN_LIMIT;
        if (row.status !== 'pending') return { withinLimit: false, failedReason: row.failedReason ?? `activation is ${row.status}` };
        const now = clock();
        const limit = SIM_LIMITS[row.identityType ?? row.personType];
        if ((await repo.handedOffOthers(tx, holder, input.activationId)) >= limit) return refuseOverLimit(tx, input.activationId);
        await repo.markInProgress(tx, input.activationId, ESTIMATED_SECONDS.in_progress, now);
        return WITHIN_LIMIT;
      });
    },

    /**
     * Writes a status the workflow moved to. `failed` and `cancelled` end the activation as endActivation
     * does (an unpaid order is cancelled, a paid one flagged for refund).
     */
    async recordActivationStatus(input: { activationId: string; status: ActivationStatus; failedReason?: string }) {
      const { status } = input;
      if (status === 'failed' || status === 'cancelled') {
        await db.transaction((tx) => end(tx, { activationId: input.activationId, status, reason: input.failedReason }));
        return;
      }
      await repo.moveStatus(db, {
        activationId: input.activationId,
        status: input.status,
        failedReason: input.failedReason ?? null,
        estimatedSeconds: ESTIMATED_SECONDS[input.status],
        now: clock(),
      });
    },

    /**
     * Ends the activation `failed` or `cancelled` with a reason, in one transaction under the lock on its
     * order, so a payment settling at the same moment is seen or waits: an unpaid order is cancelled (it
     * can no longer be paid), a paid one stays paid and its payment is flagged for refund. With
     * `unlessPaid` (the deadline's last look) a paid order changes nothing. Idempotent: an activation
     * that already ended answers its status.
     */
    async endActivation(input: EndActivation): Promise<ActivationEnd> {
      return db.transaction((tx) => end(tx, input));
    },

    async activateSim(input: { activationId: string }) {
      const row = await load(input.activationId);
      if (row.status === 'activated') return;
      refuseEnded(row);
      try {
        await heartbeating(pluginFor(row.operatorSlug).activateSim({ iccid: row.iccid, idempotencyKey: row.id }));
      } catch (err) {
        if (err instanceof OperatorRejection) throw ApplicationFailure.nonRetryable(err.reason, OPERATOR_REJECTION);
        throw err;
      }
      await markActivated(row.id, {});
    },

    /** Issues the profile: the operator's refreshed code becomes the profile; its assigned ICCID, when given, the serial. */
    async issueEsim(input: { activationId: string }) {
      const row = await load(input.activationId);
      if (row.status === 'activated') return;
      refuseEnded(row);
      let issued;
      try {
        issued = await heartbeating(pluginFor(row.operatorSlug).issueEsim({ activationCode: row.iccid, idempotencyKey: row.id }));
      } catch (err) {
        if (err instanceof OperatorRejection) throw ApplicationFailure.nonRetryable(err.reason, OPERATOR_REJECTION);
        throw err;
      }
      const code = parseActivationCode(issued.activationCode);
      if (!code) throw ApplicationFailure.nonRetryable('operator returned an invalid activation code', OPERATOR_REJECTION);
      const profile: EsimProfile = {
        smdpAddress: code.smdpAddress,
        matchingId: code.matchingId,
        activationCodeRaw: code.raw,
        qrUrl: `/activations/${row.id}/esim-qr`,
      };
      // An operator-assigned profile ICCID replaces the submitted code; without one the serial stays.
      await markActivated(row.id, { iccid: issued.iccid, profile });
    },

    async sendEsimQrEmail(input: { activationId: string }) {
      const row = await repo.findEsimMail(db, input.activationId);
      if (!row?.emailEncrypted || !row.esimProfile) return;
      try {
        await deps.messages.send({
          channel: 'email',
          to: cipher.decrypt(row.emailEncrypted),
          purpose: 'esim.qr',
          text: `Your eSIM is ready. Scan the QR code in the app (${row.esimProfile.qrUrl}) or enter ${row.esimProfile.activationCodeRaw}`,
          content: { kind: 'esim_ready', activationCode: row.esimProfile.activationCodeRaw },
        });
      } catch (err) {
        // A refused address stays refused: retrying forever would hold the activated run open. The app shows
        // the QR code anyway. A transient failure (server down, timeout) is thrown and retried.
        if (!(err instanceof MessageDeliveryError) || !err.permanent) throw err;
        log.warn('eSIM e-mail refused, not retried', { activationId: input.activationId, failure: err.message });
      }
    },
  };

  /**
   * Over the SIM limit: the activation fails with SIM_LIMIT_EXCEEDED and its order, if unpaid, is
   * cancelled so it cannot be paid any more. A paid order stays paid, as after an operator refusal,
   * and its payment is flagged for refund.
   */
  async function refuseOverLimit(tx: Sql, activationId: string): Promise<SimLimitVerdict> {
    await end(tx, { activationId, status: 'failed', reason: SIM_LIMIT_EXCEEDED });
    return { withinLimit: false, failedReason: SIM_LIMIT_EXCEEDED };
  }

  /** endActivation inside the caller's transaction (src/activations/end.ts), with the refund warnings. */
  async function end(tx: Sql, input: EndActivation): Promise<ActivationEnd> {
    const ended = await endActivation(tx, input, clock());
    if (!ended) throw ApplicationFailure.nonRetryable(`activation ${input.activationId} not found`, 'ActivationNotFound');
    if (ended.refund) log.warn('activation ended after its order was paid: refund it', ended.refund);
    else if (ended.paidWithoutPayment)
      log.warn('activation ended after its order was paid, with no completed payment to refund', { ...input, orderId: ended.orderId });
    return { status: ended.status, paid: ended.paid };
  }

  async function markActivated(activationId: string, change: { iccid?: string; profile?: EsimProfile }) {
    await repo.markActivated(db, activationId, { ...change, now: clock() });
  }
}

/** The activities of the activation workflow; workflows/activation.ts imports this type only. */
export type ActivationActivities = ReturnType<typeof createActivationActivities>;
