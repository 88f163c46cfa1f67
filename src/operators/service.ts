import type { Sql } from '../db/sql';
import type { OperatorRegistry } from './plugin';
import { telecomOperators } from './reads';

export interface OperatorListItem {
  id: string;
  slug: string;
  nameEn: string;
  nameAr: string;
  logoUrl: string | null;
  packageCount: number;
  supportsEsim: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The public operator list (GET /operators): the telecom rows, each with what its plugin supports. */
export function createOperatorList(deps: { db: Sql; operators: OperatorRegistry }) {
  const { db, operators } = deps;

  async function list(): Promise<{ data: OperatorListItem[] }> {
    const rows = await telecomOperators(db);
    return {
      data: rows.map((row) => ({
        id: row.id,
        slug: row.slug,
        nameEn: row.name_en,
        nameAr: row.name_ar,
        logoUrl: row.logo_url,
        packageCount: 0,
        supportsEsim: operators.supportsEsim(row.slug),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
    };
  }

  return { list };
}

export type OperatorList = ReturnType<typeof createOperatorList>;
