import type { Db } from '../db/sql';
import type { CompanyStatus } from '../entities';
import { AppError } from '../http/errors';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import type { CompanyAction } from '../../workflows/contracts/company-contract';
import { companyView, findCompany, listCompanies, type CompanyView } from './repository';
import type { CompanyRuns } from './runs';
import type { Actor } from './service';

export interface CompanyAdminDeps {
  db: Db;
  cipher: PersonalDataCipher;
  runs: CompanyRuns;
}

export interface CompanyListRequest extends OffsetPaging {
  status?: CompanyStatus;
  search?: string;
}

/**
 * Internal administration of companies: the list, one company, and status actions. A status action
 * is the company run's changeStatus update (the run validates it, writes the row and its audit row);
 * the answer is the company as the database then holds it.
 */
export function createCompanyAdmin(deps: CompanyAdminDeps) {
  const { db, cipher, runs } = deps;

  async function list(request: CompanyListRequest) {
    const search = request.search?.trim();
    const { rows, total } = await listCompanies(db, {
      status: request.status,
      search: search ? search : undefined,
      limit: request.limit,
      offset: offsetOf(request),
    });
    return offsetPageBody(
      'companies',
      rows.map((row) => companyView(row, cipher)),
      total,
      request,
    );
  }

  async function get(id: string): Promise<CompanyView> {
    const row = await findCompany(db, id);
    if (!row) throw new AppError('COMPANY_NOT_FOUND');
    return companyView(row, cipher);
  }

  async function changeStatus(actor: Actor, id: string, action: CompanyAction, reason: string | undefined): Promise<CompanyView> {
    // The row first: an unknown id is COMPANY_NOT_FOUND, never a question to Temporal.
    await get(id);
    const trimmed = reason?.trim();
    await runs.changeStatus(id, {
      action,
      actorUserId: actor.userId,
      reason: trimmed ? trimmed : null,
      ip: actor.ip,
      userAgent: actor.userAgent,
    });
    return get(id);
  }

  return { list, get, changeStatus };
}

export type CompanyAdmin = ReturnType<typeof createCompanyAdmin>;
