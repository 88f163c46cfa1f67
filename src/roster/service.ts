import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { writeExportAudit, type CompanyActor } from '../audit/writer';
import type { RosterStatus } from '../entities';
import { csvColumns, type CsvValue } from '../http/csv';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import { retryDeadlocks } from '../db/deadlock';
import type { Db, Tx } from '../db/sql';
import { exportRows, rosterPage, rosterTotal, type ExportRow, type LinkStatusFilter, type RosterRow } from './reads';
import { findContacts, insertEntries, insertUsers, type NewUser } from './repository';
import { checkRow, contactsOf, dropBatchDuplicates, rowRejection, type RowRejection, type StagedRow } from './rows';
import { pendingSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';

export interface RosterServiceDeps {
  db: Db;
  cipher: PersonalDataCipher;
  clock: () => Date;
  logger: Logger;
  /** Delivers the readiness signal a stage writes with its rows (src/workflow-signals). */
  signals: WorkflowSignals;
}

/** Who acts, from the verified session and the membership, and where from (for the audit row). */
export type RosterActor = CompanyActor;

/** An entry as the list answers it: the row with its contacts decrypted. */
export type RosterEntryView = Omit<RosterRow, 'phoneEncrypted' | 'emailEncrypted'> & { phone: string | null; email: string | null };

export interface RosterListQuery extends OffsetPaging {
  status?: RosterStatus;
  linkStatus?: LinkStatusFilter;
  search?: string;
}

const byKey = (u: NewUser) => u.phoneHash ?? u.emailHash ?? '';

/** The columns of people.csv, exactly as the spec names them. */
export const PEOPLE_CSV_COLUMNS = csvColumns(
  'name',
  'contact',
  'identity_type',
  'nationality',
  'roster_status',
  'link_status',
  'link_expires_at',
  'package',
  'created_at',
);
type PeopleCsvKey = (typeof PEOPLE_CSV_COLUMNS)[number]['key'];

/** An entry as the roster list (and the assignment write) answers it; contacts decrypted by `decrypt`. */
export function rosterEntryView(row: RosterRow, decrypt: (stored: string | null) => string | null): RosterEntryView {
  const { phoneEncrypted, emailEncrypted, ...entry } = row;
  return { ...entry, phone: decrypt(phoneEncrypted), email: decrypt(emailEncrypted) };
}

/**
 * The company roster: staging people from a parsed CSV (partial accept), the list, the export.
 * Contacts are stored encrypted on the staged user row and found through their keyed hashes.
 */
export function createRosterService(deps: RosterServiceDeps) {
  const { db, cipher, clock } = deps;
  const decrypt = (stored: string | null) => (stored ? cipher.decrypt(stored) : null);

  const view = (row: RosterRow) => rosterEntryView(row, decrypt);

  /**
   * The search text, trimmed (an e-mail lower-cased, as stored), as the keyed hash the users'
   * phone and e-mail hashes were made with. Blank: no search.
   */
  function searchHash(search: string | undefined): string | undefined {
    const value = search?.trim();
    if (!value) return undefined;
    return cipher.lookupHash(value.includes('@') ? value.toLowerCase() : value);
  }

  async function list(companyId: string, q: RosterListQuery) {
    const filter = {
      companyId,
      status: q.status,
      linkStatus: q.linkStatus,
      searchHash: searchHash(q.search),
      now: clock(),
      offset: offsetOf(q),
      limit: q.limit,
    };
    const [rows, total] = await Promise.all([rosterPage(db, filter), rosterTotal(db, filter)]);
    return offsetPageBody('entries', rows.map(view), total, q);
  }

  /** people.csv: every entry, newest first, unmasked contact; audited with the row count in the same transaction. */
  async function exportCsv(actor: RosterActor) {
    const rows = await db.transaction(async (tx) => {
      const found = await exportRows(tx, actor.companyId, clock());
      await writeExportAudit(tx, actor, { action: 'company.roster_export', entityType: 'roster', count: found.length, at: clock() });
      return found;
    });
    return { filename: 'people.csv', columns: PEOPLE_CSV_COLUMNS, rows: rows.map(csvRow) };
  }

  function csvRow(row: ExportRow): Record<PeopleCsvKey, CsvValue> {
    return {
      name: row.name,
      contact: decrypt(row.emailEncrypted) ?? decrypt(row.phoneEncrypted),
      identity_type: row.identityType,
      nationality: row.nationality,
      roster_status: row.status,
      link_status: row.linkStatus,
      link_expires_at: row.linkExpiresAt,
      package: row.packageNameEn,
      created_at: row.createdAt,
    };
  }

  /**
   * Stages rows: per-row checks, duplicates within the batch, then in one transaction the accounts
   * and roster rows of the rest, one statement per table. A contact already on this company's
   * roster is ALREADY_ON_ROSTER (re-uploading a file is safe), one held by any other account
   * CONTACT_EXISTS; a contact taken by a concurrent request between the check and the insert is
   * caught by the users' unique hashes and classified the same way.
   */
  async function stage(actor: RosterActor, rawRows: unknown[]) {
    const rejected: RowRejection[] = [];
    const valid: StagedRow[] = [];
    rawRows.forEach((raw, i) => {
      const checked = checkRow(raw, i + 1);
      if (Array.isArray(checked)) rejected.push(...checked);
      else valid.push(checked);
    });
    const { unique, rejected: duplicates } = dropBatchDuplicates(valid);
    rejected.push(...duplicates);

    let staged = 0;
    if (unique.length > 0) {
      const result = await withDeadlockRetry(() => db.transaction((tx) => stageRows(tx, actor, unique)));
      staged = result.staged;
      rejected.push(...result.rejected);
      // Not part of the answer: the request never waits on Temporal for it (the relay has it otherwise).
      if (result.signal) void deps.signals.launch([result.signal]);
    }
    rejected.sort((a, b) => a.rowNumber - b.rowNumber);
    return { staged, rejected };
  }

  async function stageRows(tx: Tx, actor: RosterActor, rows: StagedRow[]) {
    const hashed = rows.map((row) => ({ row, contacts: contactsOf(row).map((c) => ({ ...c, hash: cipher.lookupHash(c.value) })) }));
    const allHashes = hashed.flatMap((h) => h.contacts.map((c) => c.hash));
    const rejected: RowRejection[] = [];

    const classify = async (candidates: typeof hashed) => {
      const existing = new Map((await findContacts(tx, actor.companyId, allHashes)).map((c) => [c.hash, c.onRoster]));
      const free: typeof hashed = [];
      for (const candidate of candidates) {
        const onRoster = candidate.contacts.find((c) => existing.get(c.hash) === true);
        const taken = candidate.contacts.find((c) => existing.has(c.hash));
        if (onRoster) rejected.push(rowRejection(candidate.row.rowNumber, onRoster.field, 'ROSTER_ROW_ALREADY_ON_ROSTER'));
        else if (taken) rejected.push(rowRejection(candidate.row.rowNumber, taken.field, 'ROSTER_ROW_CONTACT_EXISTS'));
        else free.push(candidate);
      }
      return free;
    };

    const free = await classify(hashed);
    const at = clock();
    const users = free.map(({ row, contacts }): NewUser & { nationality: string | null; rowNumber: number } => {
      const phone = contacts.find((c) => c.field === 'phone');
      const email = contacts.find((c) => c.field === 'email');
      return {
        id: randomUUID(),
        rowNumber: row.rowNumber,
        name: row.name,
        phoneEncrypted: phone ? cipher.encrypt(phone.value) : null,
        phoneHash: phone?.hash ?? null,
        emailEncrypted: email ? cipher.encrypt(email.value) : null,
        emailHash: email?.hash ?? null,
        identityType: row.identityType,
        nationality: row.nationality,
      };
    });
    // In hash order, so two requests staging the same people take the unique-index entries in the same order.
    users.sort((a, b) => byKey(a).localeCompare(byKey(b)));
    const written = users.length > 0 ? await insertUsers(tx, users, at) : new Set<string>();
    const lost = users.filter((u) => !written.has(u.id));
    if (lost.length > 0) {
      // Taken between our check and our insert (committed by then: the insert waited for it).
      const lostRows = new Set(lost.map((u) => u.rowNumber));
      const unexplained = await classify(hashed.filter((h) => lostRows.has(h.row.rowNumber)));
      // Its holder cannot have gone again within the same instant; should it have, the row is still not staged.
      for (const { row, contacts } of unexplained)
        rejected.push(rowRejection(row.rowNumber, contacts[0].field, 'ROSTER_ROW_CONTACT_EXISTS'));
    }
    // Back in file order: the entries' timestamps follow it.
    const kept = users.filter((u) => written.has(u.id)).sort((a, b) => a.rowNumber - b.rowNumber);
    const staged =
      kept.length > 0
        ? await insertEntries(
            tx,
            actor.companyId,
            actor.userId,
            kept.map((u) => ({ userId: u.id, nationality: u.nationality })),
            at,
          )
        : 0;
    // The company's run recomputes readiness from the database: told with the rows, in their transaction.
    const signal = staged > 0 ? await deps.signals.enqueue(tx, pendingSignal.readinessChanged(actor.companyId, 'rosterStaged')) : undefined;
    return { staged, rejected, signal };
  }

  /**
   * Requests staging overlapping people in another order (or a sign-up holding one contact while we
   * hold another) can deadlock on the unique indexes; PostgreSQL then aborts one, which starts over
   * and finds the other's rows committed.
   */
  function withDeadlockRetry<T>(work: () => Promise<T>): Promise<T> {
    return retryDeadlocks(work, { onDeadlock: (attempt) => deps.logger.warn({ attempt }, 'roster staging deadlocked; retrying') });
  }

  return { list, exportCsv, stage };
}

export type RosterService = ReturnType<typeof createRosterService>;
