import { randomUUID } from 'node:crypto';
import { writeAudit } from '../audit/writer';
import { findUser } from '../auth';
import { isUniqueViolation, type Db, type Sql } from '../db/sql';
import type { CompanyRole, PaymentMode } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { pendingStart } from '../workflow-starts/kinds';
import { enqueueStart, type StartLauncher } from '../workflow-starts/launch';
import type { Readiness } from '../../workflows/contracts/company-contract';
import {
  companyView,
  findCompany,
  findCompanyOfUser,
  findMembership,
  hasActiveContract,
  insertCompany,
  insertMembership,
  updatePaymentMode,
  type CompanyView,
} from './repository';
import { readinessOf } from './readiness';
import type { RegisterCompanyInput } from './schemas';

export interface CompanyServiceDeps {
  db: Db;
  cipher: PersonalDataCipher;
  /** Makes the onboarding run's start at once after the commit (or leaves it to the start relay). */
  starts: StartLauncher;
  clock: () => Date;
}

/** Who acts, from the verified session, and where from (for audit rows). */
export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * The company portal's own company: read it, register it (rows and its onboarding run's pending
 * start), pick the payment mode, read its readiness. Each use case owns its transaction; the run is started after the commit.
 */
export function createCompanyService(deps: CompanyServiceDeps) {
  const { db, cipher, clock } = deps;

  async function mine(userId: string): Promise<{ company: CompanyView | null; role: CompanyRole | null }> {
    const found = await findCompanyOfUser(db, userId);
    return found ? { company: companyView(found.row, cipher), role: found.role } : { company: null, role: null };
  }

  /**
   * Company `pending`, the caller's admin membership and the run's pending start in one transaction,
   * then the run's start: a company never exists without its run, which the start relay makes when
   * this attempt could not (Temporal away, or this process died after the commit). Until it runs, a
   * status action answers SERVICE_UNAVAILABLE (src/companies/runs-temporal.ts).
   */
  async function register(userId: string, input: RegisterCompanyInput): Promise<{ company: CompanyView; role: 'admin' }> {
    const id = randomUUID();
    const row = await db.transaction(async (tx) => {
      // The user row lock serializes one person's registrations: the second sees the first's membership.
      await findUser(tx, userId, { lock: true });
      if (await findMembership(tx, userId)) throw new AppError('COMPANY_ALREADY_REGISTERED');
      const now = clock();
      const inserted = await insertNewCompany(tx, id, input, now);
      await insertMembership(tx, id, userId, 'admin', now);
      await enqueueStart(tx, pendingStart.company(id));
      return inserted;
    });
    await deps.starts.launch(pendingStart.company(id));
    return { company: companyView(row, cipher), role: 'admin' };
  }

  async function insertNewCompany(sql: Sql, id: string, input: RegisterCompanyInput, now: Date) {
    try {
      return await insertCompany(sql, {
        id,
        crNumber: input.crNumber,
        name: input.name,
        contactName: input.contactName,
        contactEmailEncrypted: cipher.encrypt(input.contactEmail),
        contactEmailHash: cipher.lookupHash(input.contactEmail),
        contactPhoneEncrypted: cipher.encrypt(input.contactPhone),
        contactPhoneHash: cipher.lookupHash(input.contactPhone),
        now,
      });
    } catch (err) {
      // Two registrations racing on one CR number: the index lets one commit, the other waits and lands here.
      if (isUniqueViolation(err, 'companies_cr_number_unique')) throw new AppError('COMPANY_CR_EXISTS');
      throw err;
    }
  }

  /**
   * Switches freely until the company has an active contract (CONTRACT_ALREADY_EXISTS). The same
   * mode again changes nothing and writes no audit row.
   */
  async function setPaymentMode(actor: Actor, companyId: string, mode: PaymentMode): Promise<{ company: CompanyView }> {
    return db.transaction(async (tx) => {
      const current = await findCompany(tx, companyId, { lock: true });
      if (!current) throw new AppError('COMPANY_NOT_FOUND');
      if (await hasActiveContract(tx, companyId)) throw new AppError('CONTRACT_ALREADY_EXISTS');
      if (current.payment_mode === mode) return { company: companyView(current, cipher) };
      const now = clock();
      const updated = await updatePaymentMode(tx, companyId, mode, now);
      await writeAudit(tx, {
        action: 'company.payment_mode_changed',
        actorUserId: actor.userId,
        companyId,
        entityType: 'company',
        entityId: companyId,
        details: { before: current.payment_mode, after: mode },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { company: companyView(updated, cipher) };
    });
  }

  /** GET /b2b/readiness: the gates as they are now, read on every call (readiness.ts). */
  function readiness(companyId: string): Promise<Readiness> {
    return readinessOf(db, companyId);
  }

  return { mine, register, setPaymentMode, readiness };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
