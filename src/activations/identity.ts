import type { Config } from '../config';
import type { Db } from '../db/sql';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import { IdentityInitiationError, type IdentityInitiation, type IdentityProvider } from '../identity/provider';
import type { PersonalDataCipher } from '../lib/crypto';
import { pendingSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import {
  IDENTITY_PROVIDER_UNAVAILABLE,
  type VerifyIdentityInput,
  type VerifyIdentityResult,
} from '../../workflows/contracts/activation-contract';
import { findOwnedIdentity, findVerification, lockVerification, recordIdentityStart, type OwnedIdentity } from './repository';

export interface IdentityDeps {
  db: Db;
  identity: IdentityProvider;
  cipher: PersonalDataCipher;
  signals: WorkflowSignals;
  config: Pick<Config, 'IDENTITY_REQUEST_TTL_SECONDS'>;
  clock?: () => Date;
}

/**
 * Identity verification of an activation (docs/decisions/identity-verification.md). The API starts it
 * at the provider and records it with a signal to the run in one transaction, so the answer needs the
 * provider and Postgres, never Temporal: the run learns of it through the signal relay and polls it.
 * Each attempt has a number, and the provider's idempotency key is made from it, so a request retried
 * after a lost answer gets the transaction the first one started; a repeat of the same verification
 * while it waits answers it again.
 */
export function createActivationIdentity(deps: IdentityDeps) {
  const { db, cipher } = deps;
  const clock = deps.clock ?? (() => new Date());
  const ttlMs = deps.config.IDENTITY_REQUEST_TTL_SECONDS * 1000;

  async function owned(userId: string, activationId: string): Promise<OwnedIdentity> {
    if (!isUuid(activationId)) throw new AppError('ACTIVATION_NOT_FOUND');
    const row = await findOwnedIdentity(db, userId, activationId);
    if (!row) throw new AppError('ACTIVATION_NOT_FOUND');
    return row;
  }

  /** The spec: only while the activation is `pending`. */
  function refuseUnlessPending(row: OwnedIdentity): void {
    if (row.status !== 'pending') throw new AppError('IDENTITY_ERROR', { message: 'Activation is not pending' });
  }

  /** A new verification: also not once the identity is proven. */
  function refuseUnlessOpen(row: OwnedIdentity): void {
    refuseUnlessPending(row);
    if (row.identityStatus === 'completed') throw new AppError('IDENTITY_ERROR', { message: 'Identity already verified' });
  }

  /**
   * The verification this request repeats, still waiting within its lifetime or completed since (a
   * client whose answer was lost asks again): its answer again, with its status now.
   */
  function joined(row: OwnedIdentity, input: VerifyIdentityInput, idNumberHash: string): VerifyIdentityResult | undefined {
    const { identityRef, identityStartedAt, identityCodeEncrypted, identityStatus } = row;
    if (!identityRef || !identityStartedAt || !identityCodeEncrypted) return undefined;
    if (row.identityType !== input.identityType || row.idNumberHash !== idNumberHash) return undefined;
    const waiting = identityStatus === 'waiting' && identityStartedAt.getTime() + ttlMs > clock().getTime();
    if (!waiting && identityStatus !== 'completed') return undefined;
    return { transId: identityRef, randomCode: cipher.decrypt(identityCodeEncrypted), status: identityStatus };
  }

  /**
   * The key names the attempt and what it verifies (the keyed hash, never the number): a retry of this
   * request gets the transaction it may have started, a corrected id number a new one.
   */
  async function initiate(
    activationId: string,
    input: VerifyIdentityInput,
    attempt: number,
    idNumberHash: string,
  ): Promise<IdentityInitiation> {
    try {
      return await deps.identity.initiate({
        idNumber: input.idNumber,
        identityType: input.identityType,
        reference: activationId,
        idempotencyKey: `activation:${activationId}:identity:${attempt}:${input.identityType}:${idNumberHash.slice(0, 16)}`,
      });
    } catch (err) {
      if (err instanceof IdentityInitiationError) throw new AppError('IDENTITY_ERROR', { message: err.message });
      // Nothing was recorded: a retry uses the same attempt's key, so a transaction the provider did start is handed back.
      throw new AppError('IDENTITY_ERROR', {
        message: 'The identity provider is unavailable, please try again',
        details: { reason: IDENTITY_PROVIDER_UNAVAILABLE },
      });
    }
  }

  /** POST verify-identity: the caller's own activation only. */
  async function start(userId: string, activationId: string, input: VerifyIdentityInput): Promise<VerifyIdentityResult> {
    return begin(activationId, await owned(userId, activationId), input);
  }

  /** The same for tools and tests that drive a run (the bench, workflow tests): the caller vouches for it. */
  async function startForRun(activationId: string, input: VerifyIdentityInput): Promise<VerifyIdentityResult> {
    const row = await findVerification(db, activationId);
    if (!row) throw new AppError('ACTIVATION_NOT_FOUND');
    return begin(activationId, row, input);
  }

  async function begin(activationId: string, row: OwnedIdentity, input: VerifyIdentityInput): Promise<VerifyIdentityResult> {
    refuseUnlessPending(row);
    const idNumberHash = cipher.lookupHash(input.idNumber);
    const again = joined(row, input, idNumberHash);
    if (again) return again;
    refuseUnlessOpen(row);

    const attempt = row.identityAttempts + 1;
    const started = await initiate(activationId, input, attempt, idNumberHash);
    const recorded = await db.transaction(async (tx) => {
      const locked = await lockVerification(tx, activationId);
      if (!locked) throw new AppError('ACTIVATION_NOT_FOUND');
      refuseUnlessPending(locked);
      if (locked.identityAttempts >= attempt) {
        // A parallel request recorded this attempt first: the same verification is its answer too.
        const same = joined(locked, input, idNumberHash);
        if (same) return { answer: same };
        throw new AppError('IDENTITY_ERROR', { message: 'Another verification started meanwhile' });
      }
      refuseUnlessOpen(locked);
      const now = clock();
      await recordIdentityStart(tx, {
        activationId,
        transId: started.transId,
        identityType: input.identityType,
        idNumberEncrypted: cipher.encrypt(input.idNumber),
        idNumberHash,
        now,
        attempt,
        codeEncrypted: cipher.encrypt(started.randomCode),
      });
      const signal = await deps.signals.enqueue(tx, pendingSignal.identityStarted(activationId, { transId: started.transId, attempt }));
      const answer: VerifyIdentityResult = { transId: started.transId, randomCode: started.randomCode, status: 'waiting' };
      return { answer, signal };
    });
    if (recorded.signal) await deps.signals.launch([recorded.signal]);
    return recorded.answer;
  }

  async function status(userId: string, activationId: string) {
    const row = await owned(userId, activationId);
    return {
      status: row.identityStatus,
      verifiedAt: row.identityStatus === 'completed' && row.identityVerifiedAt ? row.identityVerifiedAt.toISOString() : null,
    };
  }

  return { start, startForRun, status };
}

export type ActivationIdentity = ReturnType<typeof createActivationIdentity>;
