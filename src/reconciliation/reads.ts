import type { Sql } from '../db/sql';
import type { ReconciliationCode } from '../http/error-codes';
import { offsetOf, type OffsetPaging } from '../http/pagination';
import { RECORD_COLUMNS, type RecordRow } from './repository';

export interface ListFilter extends OffsetPaging {
  code?: ReconciliationCode;
  status: 'open' | 'resolved' | 'all';
}

/** Support's list: newest first, offset-paged, with the count of every record the filter matches. */
export async function listRecords(sql: Sql, filter: ListFilter): Promise<{ rows: RecordRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.status === 'open') where.push('resolved_at is null');
  if (filter.status === 'resolved') where.push('resolved_at is not null');
  if (filter.code) {
    params.push(filter.code);
    where.push(`code = $${params.length}`);
  }
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const n = params.length;
  const rows = await sql.rows<RecordRow>(
    `select ${RECORD_COLUMNS} from reconciliation_records ${clause} order by created_at desc, id desc limit $${n + 1} offset $${n + 2}`,
    [...params, filter.limit, offsetOf(filter)],
  );
  const count = await sql.one<{ total: string }>(`select count(*) as total from reconciliation_records ${clause}`, params);
  return { rows, total: Number(count?.total ?? 0) };
}
