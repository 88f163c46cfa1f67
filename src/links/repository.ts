import { textArray, uuidArray } from '../db/arrays';
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, type Sql } from '../db/sql';
import { ACTIVE_LINK_SQL, type LinkChannel, type LinkStatus } from '../entities';
import { CONSUMED_SEATS, SEAT_CONSUMED } from '../contracts/repository';

/**
 * The SQL of link minting, revoking and roster assignment. Everything runs in the caller's
 * transaction (em); arrays travel as one Postgres array literal each, so a batch is one statement
 * per table whatever its size.
 */

/** A live, unredeemed link: stored active and not past its expiry (lazy expiry). */
export const LIVE_LINK = (link: string, now: string) => `(${link}.status in (${ACTIVE_LINK_SQL}) and ${link}.expires_at > ${now})`;
/** Ever redeemed: the seat is consumed for good. */
export const REDEEMED_LINK = (link: string) => `(${link}.status = 'used' or ${link}.used_at is not null)`;

/** Locks the company row for the rest of the transaction (minting, assignment and removal serialize per company). */

export interface LineRow {
  id: string;
  package_id: string;
  qty: number;
  unit_price_halalas: string | number;
  /** Distinct people holding a seat on the line (a used link, or a live one). */
  consumed: string | number;
}

/** The lines of a contract with the people holding their seats. */
export async function contractLines(em: EntityManager, contractId: string, now: Date): Promise<LineRow[]> {
  return em.execute<LineRow[]>(
    `select ci.id, ci.package_id, ci.qty, ci.unit_price_halalas,
            ${CONSUMED_SEATS('ci.id', '?::timestamptz')} as consumed
       from contract_items ci where ci.contract_id = ?`,
    [now, contractId],
  );
}

export interface MintCandidate {
  id: string;
  user_id: string;
  package_id: string | null;
  contract_item_id: string | null;
  unit_price_halalas: string | number | null;
  name: string;
  phone_encrypted: string | null;
  email_encrypted: string | null;
  activated: boolean;
  /** The line on which this person holds a seat (a used or live link), if any. */
  seat_item_id: string | null;
  /** Whether the person holds a seat at all (a used or live link of the entry). */
  holds_seat: boolean;
}

/** The company's entries among `ids` (others are not found), with what minting decides on. */
export async function mintCandidates(em: EntityManager, companyId: string, ids: readonly string[], now: Date): Promise<MintCandidate[]> {
  if (ids.length === 0) return [];
  return em.execute<MintCandidate[]>(
    `select r.id, r.user_id, r.package_id, r.contract_item_id, (r.unit_price_sar * 100)::bigint as unit_price_halalas,
            u.name, u.phone_encrypted, u.email_encrypted,
            coalesce((select a.status = 'activated' from activations a where a.user_id = r.user_id and a.deleted_at is null
                       order by a.created_at desc, a.id desc limit 1), false) as activated,
            (select l.contract_item_id from invitation_links l
              where l.roster_entry_id = r.id and l.contract_item_id is not null and ${SEAT_CONSUMED('l', '?::timestamptz')}
              order by l.created_at desc limit 1) as seat_item_id,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${SEAT_CONSUMED('l', '?::timestamptz')}) as holds_seat
       from roster_entries r join users u on u.id = r.user_id
      where r.company_id = ? and r.id = any(?::uuid[])`,
    [now, now, companyId, uuidArray(ids)],
  );
}

/** Entries with no live link whose latest activation is not `activated`: what an export without ids mints. */
export async function eligibleEntryIds(em: EntityManager, companyId: string, now: Date): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select r.id from roster_entries r
      where r.company_id = ?
        and not exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${LIVE_LINK('l', '?::timestamptz')})
        and coalesce((select a.status = 'activated' from activations a where a.user_id = r.user_id and a.deleted_at is null
                       order by a.created_at desc, a.id desc limit 1), false) = false`,
    [companyId, now],
  );
  return rows.map((r) => r.id);
}

/** Entries whose latest link is effectively expired (stored `expired`, or active and past its expiry). */
export async function expiredEntryIds(em: EntityManager, companyId: string, now: Date): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select r.id from roster_entries r
      where r.company_id = ?
        and (r.link_status = 'expired' or (r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at <= ?::timestamptz))`,
    [companyId, now],
  );
  return rows.map((r) => r.id);
}

export interface NewLink {
  id: string;
  tokenHash: string;
  userId: string;
  rosterEntryId: string;
  packageId: string;
  contractItemId: string | null;
  unitPriceHalalas: number;
  channel: LinkChannel | null;
}

/**
 * Revokes the people's prior active links, inserts the new ones and writes each roster row's
 * assignment and price snapshot. A new link is stamped after the entry's newest row, so it is the
 * latest link even when the clock has not moved since the last mint.
 */
export async function writeLinks(
  em: EntityManager,
  f: { companyId: string; createdBy: string; status: LinkStatus; now: Date; expiresAt: Date },
  links: NewLink[],
): Promise<void> {
  if (links.length === 0) return;
  const col = <K extends keyof NewLink>(key: K) => links.map((l) => l[key]);
  await em.execute(
    `update invitation_links set status = 'revoked', updated_at = ? where user_id = any(?::uuid[]) and status in (${ACTIVE_LINK_SQL})`,
    [f.now, uuidArray(col('userId'))],
  );
  await em.execute(
    `insert into invitation_links (id, token_hash, user_id, company_id, package_id, roster_entry_id, contract_item_id, status, channel,
                                   created_by, expires_at, created_at, updated_at)
     select t.id, t.hash, t.user_id, ?, t.package_id, t.roster_id, t.item_id, ?, t.channel, ?, ?,
            greatest(?::timestamptz, (select max(i.created_at) + interval '1 microsecond' from invitation_links i where i.roster_entry_id = t.roster_id)),
            ?
       from unnest(?::uuid[], ?::text[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[])
         as t(id, hash, user_id, package_id, roster_id, item_id, channel)`,
    [
      f.companyId,
      f.status,
      f.createdBy,
      f.expiresAt,
      f.now,
      f.now,
      uuidArray(col('id')),
      textArray(col('tokenHash')),
      uuidArray(col('userId')),
      uuidArray(col('packageId')),
      uuidArray(col('rosterEntryId')),
      textArray(col('contractItemId')),
      textArray(col('channel')),
    ],
  );
  await em.execute(
    `update roster_entries r set package_id = t.package_id, contract_item_id = t.item_id, unit_price_sar = t.price / 100.0, updated_at = ?
       from unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::bigint[]) as t(roster_id, package_id, item_id, price)
      where r.id = t.roster_id`,
    [
      f.now,
      uuidArray(col('rosterEntryId')),
      uuidArray(col('packageId')),
      textArray(col('contractItemId')),
      `{${col('unitPriceHalalas').join(',')}}`,
    ],
  );
}

/** After delivery: each link `sent` or `failed` (only while still `issued`: a concurrent revoke wins). */
export async function markDelivered(em: EntityManager, sent: string[], failed: string[], now: Date): Promise<void> {
  for (const [status, ids] of [
    ['sent', sent],
    ['failed', failed],
  ] as const) {
    if (ids.length === 0) continue;
    await em.execute(`update invitation_links set status = ?, updated_at = ? where id = any(?::uuid[]) and status = 'issued'`, [
      status,
      now,
      uuidArray(ids),
    ]);
  }
}

export interface RevokeCandidate {
  id: string;
  redeemed: boolean;
  /** Holds a link stored as issued, sent or exported, live or past expiry: revoke flips both. */
  active: boolean;
}

/**
 * The company's entries among `ids`, locked, with whether they were ever redeemed and hold a stored
 * active link. Expiry is not asked: the spec's revoke also flips "a stale active row past expiry", so
 * an entry whose only link is such a row is revoked, not NO_ACTIVE_LINK.
 */
export async function revokeCandidates(em: EntityManager, companyId: string, ids: readonly string[]): Promise<RevokeCandidate[]> {
  if (ids.length === 0) return [];
  return em.execute<RevokeCandidate[]>(
    `select r.id,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and l.status in (${ACTIVE_LINK_SQL})) as active
       from roster_entries r where r.company_id = ? and r.id = any(?::uuid[])
      order by r.id for update of r`,
    [companyId, uuidArray(ids)],
  );
}

/** Flips every stored-active link of the entries (live, and stale ones past expiry) to `revoked`. */
export async function revokeLinks(em: EntityManager, rosterIds: readonly string[], now: Date): Promise<void> {
  if (rosterIds.length === 0) return;
  await em.execute(
    `update invitation_links set status = 'revoked', updated_at = ? where roster_entry_id = any(?::uuid[]) and status in (${ACTIVE_LINK_SQL})`,
    [now, uuidArray(rosterIds)],
  );
}

// --- Assignment and removal ----------------------------------------------------------------------

export interface GuardRow {
  id: string;
  user_id: string;
  redeemed: boolean;
  open: boolean;
}

/** One entry of the company, locked, with the two seat guards' facts; null when it is not the company's. */
export async function guardedEntry(em: EntityManager, companyId: string, rosterId: string, now: Date): Promise<GuardRow | null> {
  const [row] = await em.execute<GuardRow[]>(
    `select r.id, r.user_id,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${LIVE_LINK('l', '?::timestamptz')}) as open
       from roster_entries r where r.company_id = ? and r.id = ? for update of r`,
    [now, companyId, rosterId],
  );
  return row ?? null;
}

/** Writes an assignment: the price snapshot is always cleared. */
export async function writeAssignment(
  em: EntityManager,
  rosterId: string,
  a: { packageId: string | null; contractItemId: string | null },
  now: Date,
): Promise<void> {
  await em.execute('update roster_entries set package_id = ?, contract_item_id = ?, unit_price_sar = null, updated_at = ? where id = ?', [
    a.packageId,
    a.contractItemId,
    now,
    rosterId,
  ]);
}

/** Whether the account is still a bare staged end user of this company only, with no activation ever. */
export async function isBareStagedUser(em: EntityManager, companyId: string, userId: string): Promise<boolean> {
  const [row] = await em.execute<{ bare: boolean }[]>(
    `select (u.app_role = 'end_user'
             and not exists (select 1 from activations a where a.user_id = u.id)
             and not exists (select 1 from orders o where o.user_id = u.id)
             and not exists (select 1 from roster_entries r where r.user_id = u.id and r.company_id <> ?)
             and not exists (select 1 from company_users m where m.user_id = u.id)) as bare
       from users u where u.id = ?`,
    [companyId, userId],
  );
  return row?.bare === true;
}

/** Hard delete: sessions first, then the link history, the roster row and the account. */
export async function deleteEntry(em: EntityManager, rosterId: string, userId: string): Promise<void> {
  await em.execute('delete from sessions where user_id = ?', [userId]);
  await em.execute('delete from invitation_links where roster_entry_id = ? or user_id = ?', [rosterId, userId]);
  await em.execute('delete from roster_entries where id = ?', [rosterId]);
  await em.execute('delete from users where id = ?', [userId]);
}

// --- Redemption (POST /auth/magic-link, src/auth/magic-link.ts) ----------------------------------

/** What redeeming a link reads of it. */
export interface RedeemableLink {
  id: string;
  userId: string;
  companyId: string | null;
  packageId: string | null;
  status: LinkStatus;
  usedAt: Date | null;
  expiresAt: Date;
}

const LINK_COLUMNS = `id, user_id as "userId", company_id as "companyId", package_id as "packageId", status, used_at as "usedAt",
  expires_at as "expiresAt"`;

export async function findLinkByTokenHash(sql: Sql, tokenHash: string): Promise<RedeemableLink | undefined> {
  return sql.one<RedeemableLink>(query('links.find-by-token', `select ${LINK_COLUMNS} from invitation_links where token_hash = $1`), [
    tokenHash,
  ]);
}

export async function findLinkById(sql: Sql, id: string): Promise<RedeemableLink | undefined> {
  return sql.one<RedeemableLink>(query('links.find-by-id', `select ${LINK_COLUMNS} from invitation_links where id = $1`), [id]);
}

/**
 * Claims the link for its redemption, only while it is still redeemable (live, unexpired, unused):
 * under parallel redemptions, a revoke or a re-mint, this one statement decides. False: another won.
 */
export async function claimLink(sql: Sql, id: string, now: Date): Promise<boolean> {
  const claimed = await sql.exec(
    query(
      'links.claim',
      `update invitation_links set status = 'used', used_at = $2, updated_at = $2
        where id = $1 and used_at is null and status in (${ACTIVE_LINK_SQL}) and expires_at > $2`,
    ),
    [id, now],
  );
  return claimed > 0;
}
