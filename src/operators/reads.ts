import { query, type Sql } from '../db/sql';

/**
 * The SQL of GET /operators: the public list of telecom operators. Timestamps are formatted by
 * PostgreSQL itself as ISO 8601 UTC with milliseconds, independent of the session's TimeZone and
 * DateStyle.
 */

/** ISO 8601 UTC with milliseconds, formatted by PostgreSQL (null stays null). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface OperatorRow {
  id: string;
  slug: string;
  name_en: string;
  name_ar: string;
  logo_url: string | null;
  created_at: string;
  updated_at: string;
}

const OPERATORS = query(
  'operators.telecom',
  `select id, slug, name_en, name_ar, logo_url, ${iso('created_at')} as created_at, ${iso('updated_at')} as updated_at
     from operators
    where kind = 'telecom'
    order by name_en, id`,
);

/** Every telecom operator, by name. */
export async function telecomOperators(sql: Sql): Promise<OperatorRow[]> {
  return sql.rows<OperatorRow>(OPERATORS);
}
