import { query, type Query, type Sql } from '../db/sql';
import { ESIM_RECEIPT_OUTCOMES } from '../store/callbacks';
import type { PurgeTarget } from '../../workflows/contracts/housekeeping-contract';

/** Which webhook_events rows are de-duplication receipts; every other row (reconciliation records, settlement claims) is kept. */
const WEBHOOK_RECEIPTS: Array<{ provider: string; outcomes: readonly string[] }> = [
  { provider: 'esim_provider', outcomes: ESIM_RECEIPT_OUTCOMES },
];

/**
 * Rows of one table past their life. `where` reads the cutoff as $1 (rows that ended before it go)
 * and its own `values` from $2 on.
 */
interface Purge {
  table: string;
  key: string;
  where: string;
  values: readonly unknown[];
  /** The cutoff as the column stores it. */
  cutoff?: (cutoff: Date) => unknown;
}

/**
 * What "past its life" means, per target. A row goes once it ended before `now - keepMs`:
 *
 * - otp_challenges: expired. Superseded and used codes are never read again, but the newest
 *   open one is: until it is purged a late attempt reads AUTH_EXPIRED_OTP, after it AUTH_INVALID_OTP.
 * - otp_requests: older than the OTP request window (only the window is counted).
 * - token_blocklist: the token expired (it is refused by its own `exp` from then on).
 * - sessions: expired, revoked or not (the JWT carries the same expiry). A revoked session that
 *   has not expired is kept: its row makes a blocklisted holder read AUTH_BLOCKLISTED.
 * - rate_limits: the window ended (rate-limiter-flexible's `expire`, epoch milliseconds). Rows
 *   without an expiry never end.
 * - webhook_receipts: de-duplication receipts (WEBHOOK_RECEIPTS) older than the retention.
 *   Reconciliation records (mismatch, duplicate_charge, …) and settlement claims stay.
 * - webhook_inbox: rows the relay delivered or skipped before the cutoff. A pending row is never
 *   purged (the relay still owes it to its workflow). A processor redelivery after the purge is
 *   kept again and skipped by the relay (its payment has settled) or dropped by the workflow.
 *
 * The device blocklist is never purged: a device block has no end until a super_admin lifts it.
 */
const PURGES: Record<PurgeTarget, Purge> = {
  otp_challenges: { table: 'otp_challenges', key: 'id', where: 'expires_at < $1', values: [] },
  otp_requests: { table: 'otp_requests', key: 'id', where: 'created_at < $1', values: [] },
  token_blocklist: { table: 'token_blocklist', key: 'token_hash', where: 'expires_at < $1', values: [] },
  sessions: { table: 'sessions', key: 'id', where: 'expires_at < $1', values: [] },
  rate_limits: { table: 'rate_limits', key: '"key"', where: 'expire < $1', values: [], cutoff: (cutoff) => cutoff.getTime() },
  webhook_receipts: {
    table: 'webhook_events',
    key: 'id',
    where: `created_at < $1 and (${WEBHOOK_RECEIPTS.map((_, i) => `(provider = $${2 * i + 2} and outcome = any($${2 * i + 3}::text[]))`).join(' or ')})`,
    values: WEBHOOK_RECEIPTS.flatMap((r) => [r.provider, r.outcomes]),
  },
  webhook_inbox: { table: 'webhook_inbox', key: 'id', where: `status <> 'pending' and handled_at < $1`, values: [] },
};

// One statement per target: the batch size binds after the target's own values. Rows another
// transaction holds are skipped, not waited for.
const PURGE_STATEMENTS = Object.fromEntries(
  Object.entries(PURGES).map(([target, p]) => [
    target,
    query(
      `housekeeping.purge-${target}`,
      `with purged as (
         delete from ${p.table} where ${p.key} in (
           select ${p.key} from ${p.table} where ${p.where} limit $${p.values.length + 2} for update skip locked)
         returning 1)
       select count(*)::int as deleted from purged`,
    ),
  ]),
) as Record<PurgeTarget, Query>;

/** Deletes at most `batchSize` rows of `target` that ended before `cutoff`, in one statement; answers how many. */
export async function purgeBatch(sql: Sql, target: PurgeTarget, cutoff: Date, batchSize: number): Promise<number> {
  const purge = PURGES[target];
  const row = await sql.one<{ deleted: number }>(PURGE_STATEMENTS[target], [
    purge.cutoff ? purge.cutoff(cutoff) : cutoff,
    ...purge.values,
    batchSize,
  ]);
  return row?.deleted ?? 0;
}
