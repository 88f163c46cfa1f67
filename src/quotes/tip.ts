import type { Sql } from '../db/sql';
import { chainTip, type TipRow } from './repository';
import type { QuoteTip } from '../../workflows/contracts/quote-contract';

/** A version as the negotiation run's tip: a version without a parent is the company's own (version 1). */
export const tipOf = (row: TipRow): QuoteTip => ({
  versionId: row.id,
  version: row.version,
  status: row.status,
  companyAuthored: row.parentId === null,
});

/**
 * The chain's tip (its version without a child) as stored, or null for an unknown chain. The
 * negotiation workflow refreshes its state with it after a failed write, and the API reads it to
 * answer an action on a chain whose run has completed.
 */
export async function readQuoteTip(sql: Sql, chainRootId: string): Promise<QuoteTip | null> {
  const row = await chainTip(sql, chainRootId);
  return row ? tipOf(row) : null;
}
