import type { Logger } from 'pino';
import { writeAudit } from '../audit/writer';
import type { Db } from '../db/sql';
import type { CompanyRole } from '../entities';
import { AppError } from '../http/errors';
import type { PersonalDataCipher } from '../lib/crypto';
import { provisionAccount } from '../admin/provision';
import { findCompany, insertMembership } from './repository';
import type { Actor } from './service';

export interface InviteInput {
  name: string;
  phone?: string;
  email?: string;
  role: CompanyRole;
  companyId?: string;
}

export interface InviteResult {
  user: { id: string; phone: string | null; email: string | null; name: string; role: 'b2b_admin'; isActive: boolean; createdAt: string };
  companyId: string | null;
  companyRole: CompanyRole;
}

/**
 * POST /admin/companies/invites: a super_admin provisions a company portal user (app role
 * `b2b_admin`). With a company, the user joins it with the given role; a first admin comes without
 * one and registers the company (POST /b2b/company). The identity, the membership and the audit row
 * (`company.user_invited`) are one transaction (see provisionAccount). The person signs in by OTP.
 */
export function createCompanyInvites(deps: { db: Db; cipher: PersonalDataCipher; clock: () => Date; logger: Pick<Logger, 'error'> }) {
  async function assertCompany(companyId: string): Promise<void> {
    if (!(await findCompany(deps.db, companyId))) throw new AppError('COMPANY_NOT_FOUND');
  }

  async function invite(actor: Actor, input: InviteInput): Promise<InviteResult> {
    // Companies are never deleted, so the check can run before the transaction.
    if (input.companyId) await assertCompany(input.companyId);
    const companyId = input.companyId ?? null;
    const now = deps.clock();
    const id = await provisionAccount(
      deps,
      { name: input.name, appRole: 'b2b_admin', phone: input.phone, email: input.email, managedAreas: null, managedAreasWrite: null },
      now,
      async (tx, userId) => {
        if (companyId) await insertMembership(tx, companyId, userId, input.role, now);
        await writeAudit(tx, {
          action: 'company.user_invited',
          actorUserId: actor.userId,
          companyId,
          entityType: 'user',
          entityId: userId,
          details: { companyRole: input.role, companyId },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
      },
    );
    return {
      user: {
        id,
        phone: input.phone ?? null,
        email: input.email ?? null,
        name: input.name,
        role: 'b2b_admin',
        isActive: true,
        createdAt: now.toISOString(),
      },
      companyId,
      companyRole: input.role,
    };
  }

  return { invite };
}

export type CompanyInvites = ReturnType<typeof createCompanyInvites>;
