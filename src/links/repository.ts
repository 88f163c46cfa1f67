import { query, type Sql } from '../db/sql';
import { ACTIVE_LINK_SQL, type LinkChannel, type LinkStatus } from '../entities';
import { CONSUMED_SEATS, SEAT_CONSUMED } from '../contracts';
import type { RedeemableLink } from '../auth/magic-link';

/**
 * The SQL of link minting, revoking and redemption. Everything runs on the Sql the caller hands
 * down (its transaction, when the use case has one); arrays bind as Postgres arrays, so a batch is
 * one statement per table whatever its size.
 */

/** A live, unredeemed link: stored active and not past its expiry (lazy expiry). */
export const LIVE_LINK = (link: string, now: string) => `(${link}.status in (${ACTIVE_LINK_SQL}) and ${link}.expires_at > ${now})`;
/** Ever redeemed: the seat is consumed for good. */
export const REDEEMED_LINK = (link: string) => `(${link}.status = 'used' or ${link}.used_at is not null)`;

export interface ContractLine {
  id: string;
  packageId: string;
  qty: number;
  /** bigint: text. */
  unitPriceHalalas: string;
  /** Distinct people holding a seat on the line (a used link, or a live one). */
  consumed: number;
}

const CONTRACT_LINES = query(
  'links.contract-lines',
  `select ci.id, ci.package_id as "packageId", ci.qty, ci.unit_price_halalas as "unitPriceHalalas",
          ${CONSUMED_SEATS('ci.id', '$2::timestamptz')}::int as consumed
     from contract_items ci where ci.contract_id = $1`,
);

/** The lines of a contract with the people holding their seats. */
export async function contractLines(sql: Sql, contractId: string, now: Date): Promise<ContractLine[]> {
  return sql.rows<ContractLine>(CONTRACT_LINES, [contractId, now]);
}

export interface MintCandidate {
  id: string;
  userId: string;
  packageId: string | null;
  contractItemId: string | null;
  /** The price snapshot in halalas (bigint: text), or null. */
  unitPriceHalalas: string | null;
  name: string;
  phoneEncrypted: string | null;
  emailEncrypted: string | null;
  activated: boolean;
  /** The line on which this person holds a seat (a used or live link), if any. */
  seatItemId: string | null;
  /** Whether the person holds a seat at all (a used or live link of the entry). */
  holdsSeat: boolean;
}

const MINT_CANDIDATES = query(
  'links.mint-candidates',
  `select r.id, r.user_id as "userId", r.package_id as "packageId", r.contract_item_id as "contractItemId",
          r.unit_price_halalas as "unitPriceHalalas",
          u.name, u.phone_encrypted as "phoneEncrypted", u.email_encrypted as "emailEncrypted",
          coalesce((select a.status = 'activated' from activations a where a.user_id = r.user_id and a.deleted_at is null
                     order by a.created_at desc, a.id desc limit 1), false) as activated,
          (select l.contract_item_id from invitation_links l
            where l.roster_entry_id = r.id and l.contract_item_id is not null and ${SEAT_CONSUMED('l', '$1::timestamptz')}
            order by l.created_at desc limit 1) as "seatItemId",
          exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${SEAT_CONSUMED('l', '$1::timestamptz')}) as "holdsSeat"
     from roster_entries r join users u on u.id = r.user_id
    where r.company_id = $2 and r.id = any($3::uuid[])`,
);

/** The company's entries among `ids` (others are not found), with what minting decides on. */
export async function mintCandidates(sql: Sql, companyId: string, ids: readonly string[], now: Date): Promise<MintCandidate[]> {
  if (ids.length === 0) return [];
  return sql.rows<MintCandidate>(MINT_CANDIDATES, [now, companyId, ids]);
}

const ASSIGNED_PACKAGES = query(
  'links.assigned-packages',
  'select distinct package_id as "packageId" from roster_entries where company_id = $1 and package_id is not null',
);

/** The packages assigned on the company's roster (the flexible mint prices them up front). */
export async function assignedPackages(sql: Sql, companyId: string): Promise<string[]> {
  return (await sql.rows<{ packageId: string }>(ASSIGNED_PACKAGES, [companyId])).map((r) => r.packageId);
}

const ELIGIBLE_ENTRIES = query(
  'links.eligible-entries',
  `select r.id from roster_entries r
    where r.company_id = $1
      and not exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${LIVE_LINK('l', '$2::timestamptz')})
      and coalesce((select a.status = 'activated' from activations a where a.user_id = r.user_id and a.deleted_at is null
                     order by a.created_at desc, a.id desc limit 1), false) = false`,
);

/** Entries with no live link whose latest activation is not `activated`: what an export without ids mints. */
export async function eligibleEntryIds(sql: Sql, companyId: string, now: Date): Promise<string[]> {
  return (await sql.rows<{ id: string }>(ELIGIBLE_ENTRIES, [companyId, now])).map((r) => r.id);
}

const EXPIRED_ENTRIES = query(
  'links.expired-entries',
  `select r.id from roster_entries r
    where r.company_id = $1
      and (r.link_status = 'expired' or (r.link_status in (${ACTIVE_LINK_SQL}) and r.link_expires_at <= $2::timestamptz))`,
);

/** Entries whose latest link is effectively expired (stored `expired`, or active and past its expiry). */
export async function expiredEntryIds(sql: Sql, companyId: string, now: Date): Promise<string[]> {
  return (await sql.rows<{ id: string }>(EXPIRED_ENTRIES, [companyId, now])).map((r) => r.id);
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

const REVOKE_PRIOR = query(
  'links.revoke-prior',
  `update invitation_links set status = 'revoked', updated_at = $1 where user_id = any($2::uuid[]) and status in (${ACTIVE_LINK_SQL})`,
);
const INSERT_LINKS = query(
  'links.insert',
  `insert into invitation_links (id, token_hash, user_id, company_id, package_id, roster_entry_id, contract_item_id, status, channel,
                                 created_by, expires_at, created_at, updated_at)
   select t.id, t.hash, t.user_id, $1, t.package_id, t.roster_id, t.item_id, $2, t.channel, $3, $4,
          greatest($5::timestamptz, (select max(i.created_at) + interval '1 microsecond' from invitation_links i where i.roster_entry_id = t.roster_id)),
          $5
     from unnest($6::uuid[], $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::uuid[], $12::text[])
       as t(id, hash, user_id, package_id, roster_id, item_id, channel)`,
);
const SNAPSHOT_ASSIGNMENTS = query(
  'links.snapshot-assignments',
  `update roster_entries r set package_id = t.package_id, contract_item_id = t.item_id, unit_price_halalas = t.price, updated_at = $1
     from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::bigint[]) as t(roster_id, package_id, item_id, price)
    where r.id = t.roster_id`,
);

/**
 * Revokes the people's prior active links, inserts the new ones and writes each roster row's
 * assignment and price snapshot. A new link is stamped after the entry's newest row, so it is the
 * latest link even when the clock has not moved since the last mint.
 */
export async function writeLinks(
  sql: Sql,
  f: { companyId: string; createdBy: string; status: LinkStatus; now: Date; expiresAt: Date },
  links: NewLink[],
): Promise<void> {
  if (links.length === 0) return;
  const col = <K extends keyof NewLink>(key: K) => links.map((l) => l[key]);
  await sql.exec(REVOKE_PRIOR, [f.now, col('userId')]);
  await sql.exec(INSERT_LINKS, [
    f.companyId,
    f.status,
    f.createdBy,
    f.expiresAt,
    f.now,
    col('id'),
    col('tokenHash'),
    col('userId'),
    col('packageId'),
    col('rosterEntryId'),
    col('contractItemId'),
    col('channel'),
  ]);
  await sql.exec(SNAPSHOT_ASSIGNMENTS, [f.now, col('rosterEntryId'), col('packageId'), col('contractItemId'), col('unitPriceHalalas')]);
}

const MARK_DELIVERED = query(
  'links.mark-delivered',
  `update invitation_links set status = $1, updated_at = $2 where id = any($3::uuid[]) and status = 'issued'`,
);

/** After delivery: each link `sent` or `failed` (only while still `issued`: a concurrent revoke wins). */
export async function markDelivered(sql: Sql, sent: string[], failed: string[], now: Date): Promise<void> {
  for (const [status, ids] of [
    ['sent', sent],
    ['failed', failed],
  ] as const) {
    if (ids.length === 0) continue;
    await sql.exec(MARK_DELIVERED, [status, now, ids]);
  }
}

export interface RevokeCandidate {
  id: string;
  redeemed: boolean;
  /** Holds a link stored as issued, sent or exported, live or past expiry: revoke flips both. */
  active: boolean;
}

const REVOKE_CANDIDATES = query(
  'links.revoke-candidates',
  `select r.id,
          exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
          exists (select 1 from invitation_links l where l.roster_entry_id = r.id and l.status in (${ACTIVE_LINK_SQL})) as active
     from roster_entries r where r.company_id = $1 and r.id = any($2::uuid[])
    order by r.id for update of r`,
);

/**
 * The company's entries among `ids`, locked, with whether they were ever redeemed and hold a stored
 * active link. Expiry is not asked: the spec's revoke also flips "a stale active row past expiry", so
 * an entry whose only link is such a row is revoked, not NO_ACTIVE_LINK.
 */
export async function revokeCandidates(sql: Sql, companyId: string, ids: readonly string[]): Promise<RevokeCandidate[]> {
  if (ids.length === 0) return [];
  return sql.rows<RevokeCandidate>(REVOKE_CANDIDATES, [companyId, ids]);
}

const REVOKE_LINKS = query(
  'links.revoke',
  `update invitation_links set status = 'revoked', updated_at = $1 where roster_entry_id = any($2::uuid[]) and status in (${ACTIVE_LINK_SQL})`,
);

/** Flips every stored-active link of the entries (live, and stale ones past expiry) to `revoked`. */
export async function revokeLinks(sql: Sql, rosterIds: readonly string[], now: Date): Promise<void> {
  if (rosterIds.length === 0) return;
  await sql.exec(REVOKE_LINKS, [now, rosterIds]);
}

// --- Redemption (POST /auth/magic-link, src/auth/magic-link.ts) ----------------------------------

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
