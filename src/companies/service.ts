import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeAudit } from '../audit/writer';
import { isUniqueViolation } from '../db/sql';
import type { CompanyRole, PaymentMode } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { hasActiveContract } from './repository';
import { findMembership } from './membership';
import { pendingStart } from '../workflow-starts/kinds';
import type { StartLauncher } from '../workflow-starts/launch';
import { enqueueStart } from '../workflow-starts/repository';
import {
  companyView,
  findCompany,
  findCompanyOfUser,
  insertCompany,
  insertMembership,
  updatePaymentMode,
  type CompanyView,
} from './repository';
import type { RegisterCompanyInput } from './schemas';
import { sqlOf } from '../db/transition';

export interface CompanyServiceDeps {
  orm: MikroORM;
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
 * start), pick the payment mode. Each use case owns its transaction; the run is started after the commit.
 */
export function createCompanyService(deps: CompanyServiceDeps) {
  const { orm, cipher, clock } = deps;

  async function mine(userId: string): Promise<{ company: CompanyView | null; role: CompanyRole | null }> {
    const found = await findCompanyOfUser(sqlOf(orm.em.fork()), userId);
    return found ? { company: companyView(found.row, cipher), role: found.role } : { company: null, role: null };
  }

  /**
   * Company `pending`, the caller's admin membership and the run's pending start in one transaction,
   * then the run's start: a company never exists without its run, which the start relay makes when
   * this attempt could not (Temporal away, or this process died after the commit). Until it runs, a
   * status action answers SERVICE_UNAVAILABLE (src/temporal/companies.ts).
   */
  async function register(userId: string, input: RegisterCompanyInput): Promise<{ company: CompanyView; role: 'admin' }> {
    const id = randomUUID();
    const row = await orm.em.fork().transactional(async (em) => {
      // The user row lock serializes one person's registrations: the second sees the first's membership.
      await em.execute('select id from users where id = ? for update', [userId]);
      if (await findMembership(em, userId)) throw new AppError('COMPANY_ALREADY_REGISTERED');
      const now = clock();
      const inserted = await insertNewCompany(em, id, input, now);
      await insertMembership(em, id, userId, 'admin', now);
      await enqueueStart(sqlOf(em), pendingStart.company(id));
      return inserted;
    });
    await deps.starts.launch(pendingStart.company(id));
    return { company: companyView(row, cipher), role: 'admin' };
  }

  async function insertNewCompany(em: EntityManager, id: string, input: RegisterCompanyInput, now: Date) {
    try {
      return await insertCompany(em, {
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
    return orm.em.fork().transactional(async (em) => {
      const current = await findCompany(sqlOf(em), companyId, { lock: true });
      if (!current) throw new AppError('COMPANY_NOT_FOUND');
      if (await hasActiveContract(sqlOf(em), companyId)) throw new AppError('CONTRACT_ALREADY_EXISTS');
      if (current.payment_mode === mode) return { company: companyView(current, cipher) };
      const now = clock();
      const updated = await updatePaymentMode(em, companyId, mode, now);
      await writeAudit(sqlOf(em), {
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

  return { mine, register, setPaymentMode };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
