import { writeAudit, type CompanyActor } from '../audit/writer';
import { findCompany } from '../companies';
import { findContract } from '../contracts';
import type { Db, Tx } from '../db/sql';
import type { PaymentMode } from '../entities';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import type { PersonalDataCipher } from '../lib/crypto';
import { contractLines } from '../links';
import { catalogPrices } from '../quotes';
import { readRosterEntry } from './reads';
import { deleteEntry, guardedEntry, isBareStagedUser, writeAssignment } from './repository';
import { rosterEntryView } from './service';

export interface RosterAssignmentDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
}

/**
 * A roster entry's assignment (its package or contract line) and its removal, each refused while
 * the seat the entry's links hold is in play: once the person redeemed a link (ROSTER_SEAT_CONSUMED)
 * or while they hold a live one (ROSTER_LINK_OPEN). One transaction each, with the company row locked
 * first, as minting does, so an assignment and a mint of one company serialize.
 */
export function createRosterAssignment(deps: RosterAssignmentDeps) {
  const { db, cipher, clock } = deps;
  const decrypt = (stored: string | null) => (stored ? cipher.decrypt(stored) : null);

  /** The two seat guards, in the caller's transaction with the entry locked. */
  async function guarded(tx: Tx, companyId: string, rosterId: string, now: Date) {
    const entry = isUuid(rosterId) ? await guardedEntry(tx, companyId, rosterId, now) : undefined;
    if (!entry) throw new AppError('ROSTER_ENTRY_NOT_FOUND');
    if (entry.redeemed) throw new AppError('ROSTER_SEAT_CONSUMED');
    if (entry.open) throw new AppError('ROSTER_LINK_OPEN');
    return entry;
  }

  /** PATCH /b2b/roster/:rosterId: the entry's package (flexible) or contract line (prepaid); clears the price snapshot. */
  async function assign(actor: CompanyActor, rosterId: string, body: { packageId?: string | null; contractItemId?: string | null }) {
    const now = clock();
    return db.transaction(async (tx) => {
      const mode: PaymentMode = (await findCompany(tx, actor.companyId, { lock: true }))?.payment_mode ?? 'prepaid';
      const field = body.packageId !== undefined ? 'packageId' : 'contractItemId';
      const value = body[field]?.toLowerCase() ?? null;
      if ((mode === 'flexible') !== (field === 'packageId')) throw new AppError('VALIDATION_INVALID_INPUT', { details: { field, mode } });
      await guarded(tx, actor.companyId, rosterId, now);
      const id = rosterId.toLowerCase();
      if (field === 'packageId') {
        if (value && !(await catalogPrices(tx, [value])).has(value)) throw new AppError('PACKAGE_NOT_FOUND');
        await writeAssignment(tx, id, { packageId: value, contractItemId: null }, now);
      } else {
        const itemId = value;
        let packageId: string | null = null;
        if (itemId) {
          const contract = await findContract(tx, { companyId: actor.companyId });
          const line = contract ? (await contractLines(tx, contract.id, now)).find((l) => l.id === itemId) : undefined;
          if (!line) throw new AppError('CONTRACT_ITEM_NOT_FOUND');
          packageId = line.packageId;
        }
        await writeAssignment(tx, id, { packageId, contractItemId: itemId }, now);
      }
      await auditEntry(tx, actor, 'company.roster_assign', id, { [field]: value }, now);
      const entry = await readRosterEntry(tx, id, now);
      if (!entry) throw new AppError('ROSTER_ENTRY_NOT_FOUND');
      return rosterEntryView(entry, decrypt);
    });
  }

  /** DELETE /b2b/roster/:rosterId: the guards, the final bare-account re-check, then the hard delete. */
  async function remove(actor: CompanyActor, rosterId: string) {
    const now = clock();
    await db.transaction(async (tx) => {
      await findCompany(tx, actor.companyId, { lock: true });
      const entry = await guarded(tx, actor.companyId, rosterId, now);
      if (!(await isBareStagedUser(tx, actor.companyId, entry.userId))) throw new AppError('ROSTER_SEAT_CONSUMED');
      await deleteEntry(tx, entry.id, entry.userId);
      await auditEntry(tx, actor, 'company.roster_remove', entry.id, {}, now);
    });
    return { removed: true as const };
  }

  return { assign, remove };
}

export type RosterAssignment = ReturnType<typeof createRosterAssignment>;

/** A roster entry's assignment or removal: the entry and the ids it was given, never contact data. */
function auditEntry(
  tx: Tx,
  actor: CompanyActor,
  action: 'company.roster_assign' | 'company.roster_remove',
  rosterId: string,
  details: Record<string, string | null>,
  at: Date,
) {
  return writeAudit(tx, {
    action,
    actorUserId: actor.userId,
    companyId: actor.companyId,
    entityType: 'roster_entry',
    entityId: rosterId,
    details,
    ip: actor.ip,
    userAgent: actor.userAgent,
    at,
  });
}
