import type { MikroORM } from '@mikro-orm/postgresql';
import { ESIM_RECEIPT_OUTCOMES } from '../src/webhooks/esim-provider';
import type { PurgeTarget } from '../workflows/housekeeping-contract';

export interface HousekeepingActivityDeps {
  orm: MikroORM;
  clock?: () => Date;
}

/** Which webhook_events rows are de-duplication receipts; every other row (reconciliation records, settlement claims) is kept. */
const WEBHOOK_RECEIPTS: Array<{ provider: string; outcomes: readonly string[] }> = [
  { provider: 'esim_provider', outcomes: ESIM_RECEIPT_OUTCOMES },
];

/** Rows of one table past their life: `where` takes the cutoff (rows that ended before it go). */
interface Purge {
  table: string;
  key: string;
  where: (cutoff: Date) => { sql: string; params: unknown[] };
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
  otp_challenges: { table: 'otp_challenges', key: 'id', where: (cutoff) => ({ sql: 'expires_at < ?', params: [cutoff] }) },
  otp_requests: { table: 'otp_requests', key: 'id', where: (cutoff) => ({ sql: 'created_at < ?', params: [cutoff] }) },
  token_blocklist: { table: 'token_blocklist', key: 'token_hash', where: (cutoff) => ({ sql: 'expires_at < ?', params: [cutoff] }) },
  sessions: { table: 'sessions', key: 'id', where: (cutoff) => ({ sql: 'expires_at < ?', params: [cutoff] }) },
  rate_limits: { table: 'rate_limits', key: '"key"', where: (cutoff) => ({ sql: 'expire < ?', params: [cutoff.getTime()] }) },
  webhook_receipts: {
    table: 'webhook_events',
    key: 'id',
    where: (cutoff) => ({
      sql: `created_at < ? and (${WEBHOOK_RECEIPTS.map((r) => `(provider = ? and outcome in (${r.outcomes.map(() => '?').join(', ')}))`).join(' or ')})`,
      params: [cutoff, ...WEBHOOK_RECEIPTS.flatMap((r) => [r.provider, ...r.outcomes])],
    }),
  },
  webhook_inbox: {
    table: 'webhook_inbox',
    key: 'id',
    where: (cutoff) => ({ sql: `status <> 'pending' and handled_at < ?`, params: [cutoff] }),
  },
};

/**
 * Housekeeping: each call deletes at most `batchSize` rows of one target in one statement (its
 * own short transaction). Rows another transaction holds are skipped, not waited for (the next
 * batch or run takes them). Idempotent: what is gone stays gone, and a retry deletes what is left.
 */
export function createHousekeepingActivities(deps: HousekeepingActivityDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    async purgeExpired(input: { target: PurgeTarget; keepMs: number; batchSize: number }): Promise<{ deleted: number }> {
      const purge = PURGES[input.target];
      const where = purge.where(new Date(clock().getTime() - input.keepMs));
      const [row] = await deps.orm.em.fork().execute<{ deleted: number }[]>(
        `with purged as (
           delete from ${purge.table} where ${purge.key} in (
             select ${purge.key} from ${purge.table} where ${where.sql} limit ? for update skip locked)
           returning 1)
         select count(*)::int as deleted from purged`,
        [...where.params, input.batchSize],
      );
      return { deleted: row?.deleted ?? 0 };
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
