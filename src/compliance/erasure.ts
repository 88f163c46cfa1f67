import { writeAudit } from '../audit/writer';
import type { Db, Sql } from '../db/sql';
import type { PersonalDataCipher } from '../lib/crypto';
import * as repo from './repository';

/** Who asked, for the audit row. */
export interface Requester {
  userId: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Why an erasure happened: a super_admin's reason, or the retention schedule. */
export type ErasureCause = { by: 'admin'; actor: Requester; reason: string } | { by: 'retention' };

/**
 * Erases the person's data inside the caller's transaction, the user row locked: name, phone, e-mail
 * (held, retained or claimed), id numbers and every keyed hash of them; deletedAt on the activations;
 * sessions, codes, OTP counts and codes still waiting to be sent; the roster's nationality; the audit
 * trail's names of the person (renames included), address and user agent. Orders, payments, receipts,
 * store orders and reconciliation records stay, without personal data. Audited (`compliance.user_erased`)
 * with the cause and counts, never the erased values.
 */
export async function erasePersonalData(
  tx: Sql,
  cipher: PersonalDataCipher,
  subject: repo.DeletionSubject,
  cause: ErasureCause,
  now: Date,
  extra: Record<string, number> = {},
): Promise<void> {
  const hashes = identifierHashes(cipher, subject);
  await repo.eraseUser(tx, subject.id, now);
  const erasedActivations = await repo.eraseActivations(tx, subject.id, now);
  await repo.deleteOtpRequests(tx, hashes);
  const pendingMessages = await repo.deletePendingMessages(tx, hashes);
  await repo.deleteChallenges(tx, subject.id);
  await repo.deleteSessions(tx, subject.id);
  await repo.eraseRosterDetails(tx, subject.id);
  await repo.eraseAuditTrail(tx, subject.id);
  // Every process (API replicas, the worker) forgets the decrypted values it keeps, id numbers included.
  await repo.announceErasure(tx);
  const admin = cause.by === 'admin' ? cause : null;
  await writeAudit(tx, {
    action: 'compliance.user_erased',
    actorUserId: admin?.actor.userId ?? null,
    entityType: 'user',
    entityId: subject.id,
    details: { trigger: cause.by, ...(admin ? { reason: admin.reason } : {}), erasedActivations, pendingMessages, ...extra },
    ip: admin?.actor.ip ?? null,
    userAgent: admin?.actor.userAgent ?? null,
    at: now,
  });
}

/** The keyed hashes of every identifier the account held, kept or claimed (OTP counts are keyed by them). */
function identifierHashes(cipher: PersonalDataCipher, subject: repo.DeletionSubject): string[] {
  const stored = [
    subject.phoneEncrypted,
    subject.emailEncrypted,
    subject.retainedPhoneEncrypted,
    subject.retainedEmailEncrypted,
    subject.pendingPhoneEncrypted,
    subject.pendingEmailEncrypted,
  ].filter((v): v is string => v !== null);
  const hashes = stored.map((v) => cipher.lookupHash(cipher.decrypt(v)));
  // The process forgets the text too (the cipher keeps decrypted values of stored ones).
  stored.forEach((v) => cipher.forget(v));
  return [...new Set(hashes)];
}

/**
 * The retention schedule's batch (activities/retention.ts): erases up to `limit` accounts whose
 * retainUntil is before `asOf`, each in its own transaction. Answers how many it erased, and whether
 * the batch was full (more may be due). An account erased meanwhile (by a super_admin) is skipped.
 */
export async function eraseDue(
  deps: { db: Db; cipher: PersonalDataCipher; clock: () => Date },
  asOf: Date,
  limit: number,
): Promise<{ erased: number; more: boolean }> {
  const due = await repo.dueForErasure(deps.db, asOf, limit);
  let erased = 0;
  for (const userId of due) {
    erased += await deps.db.transaction(async (tx) => {
      const subject = await repo.lockSubject(tx, userId);
      if (!subject || subject.erasedAt) return 0;
      await erasePersonalData(tx, deps.cipher, subject, { by: 'retention' }, deps.clock());
      return 1;
    });
  }
  return { erased, more: due.length === limit };
}
