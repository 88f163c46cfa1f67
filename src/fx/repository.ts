import { query, type Sql } from '../db/sql';
import type { FxCurrency } from '../lib/money';

/** Exchange-rate snapshots: appended by the FX schedule (and the development seed), read as the latest per currency. */

export interface FxRate {
  currency: FxCurrency;
  /** Exact decimal text. */
  ratePerUsd: string;
  source: string;
  fetchedAt: Date;
}

const APPEND = query(
  'fx.append-snapshots',
  `insert into fx_rate_snapshots (currency, rate_per_usd, source, fetched_at)
   select c, r::numeric, $3, $4 from unnest($1::text[], $2::text[]) as u(c, r)`,
);

/** One snapshot per currency, all fetched at `fetchedAt` from `source`. */
export async function appendSnapshots(
  sql: Sql,
  rates: ReadonlyArray<{ currency: FxCurrency; ratePerUsd: string }>,
  source: string,
  fetchedAt: Date,
): Promise<number> {
  if (rates.length === 0) return 0;
  return sql.exec(APPEND, [rates.map((r) => r.currency), rates.map((r) => r.ratePerUsd), source, fetchedAt]);
}

const RATE_COLUMNS = `currency, trim_scale(rate_per_usd)::text as "ratePerUsd", source, fetched_at as "fetchedAt"`;

const LATEST_ALL = query(
  'fx.latest-rates',
  `select s.* from unnest($1::text[]) as c(currency)
     cross join lateral (select ${RATE_COLUMNS} from fx_rate_snapshots where currency = c.currency order by fetched_at desc limit 1) s
    order by s.currency`,
);

/** The latest snapshot of each of `currencies` that has one, alphabetical (one index probe each). */
export function latestRates(sql: Sql, currencies: readonly FxCurrency[]): Promise<FxRate[]> {
  return sql.rows<FxRate>(LATEST_ALL, [currencies]);
}

const LATEST_ONE = query(
  'fx.latest-rate',
  `select ${RATE_COLUMNS} from fx_rate_snapshots where currency = $1 order by fetched_at desc limit 1`,
);

/** The latest snapshot of one currency, or undefined. */
export function latestRate(sql: Sql, currency: FxCurrency): Promise<FxRate | undefined> {
  return sql.one<FxRate>(LATEST_ONE, [currency]);
}
