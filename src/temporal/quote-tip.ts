import { query, type Sql } from '../db/sql';
import type { QuoteStatusValue, QuoteTip } from '../../workflows/quote-contract';

/**
 * The chain's tip (its version without a child) as stored, or null for an unknown chain. The
 * negotiation workflow refreshes its state with it after a failed write, and the API reads it to
 * answer an action on a chain whose run has completed.
 */
export async function readQuoteTip(sql: Sql, chainRootId: string): Promise<QuoteTip | null> {
  const row = await sql.one<{ id: string; version: number; status: QuoteStatusValue; parent_id: string | null }>(
    query(
      'quotes.tip',
      `select v.id, v.version, v.status, v.parent_id from quote_versions v
        where v.chain_root_id = $1 and not exists (select 1 from quote_versions c where c.parent_id = v.id)
        order by v.version desc limit 1`,
    ),
    [chainRootId],
  );
  return row ? { versionId: row.id, version: row.version, status: row.status, companyAuthored: row.parent_id === null } : null;
}
