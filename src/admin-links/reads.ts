import { likeSubstring } from '../db/like';
import { query, type Sql } from '../db/sql';
import { ACTIVE_LINK_SQL, ACTIVE_LINK_STATUSES, LINK_STATUSES, type LinkChannel, type LinkStatus } from '../entities';
import { capRows, csvColumns, CSV_EXPORT_ROW_CAP, type CsvValue } from '../http/csv';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import { maskedDestination } from './mask';

/**
 * Every company's invitation links for staff (GET /admin/links and its export): newest first, lazy
 * expiry applied to both the status shown and the status filter, contacts masked, never a token or
 * hash. Read-only: lazy expiry is computed against the app's clock, nothing is written.
 */

export interface AdminLinkFilter {
  status?: LinkStatus;
  search?: string;
}

/**
 * What a search matches, read first through the names' trigram indexes: the ids of the people and
 * companies whose name holds it, or only the pattern when more than `max` of either match. Bound
 * ids tell the planner how few they are, so it fetches those links by user and company; with only
 * the pattern it cannot know, and walks the newest-first scan, which finds a common name's page at
 * once (and a rare one's only at the end of every link).
 */
type NameMatch = { pattern: string; ids?: { users: string[]; companies: string[] } };

const NAME_MATCH = query(
  'admin-links.name-match',
  `select array(select id from users where name ilike $1 limit $2)::text[] as users,
          array(select id from companies where name ilike $1 limit $2)::text[] as companies`,
);

async function nameMatchOf(sql: Sql, search: string | undefined, max: number): Promise<NameMatch | undefined> {
  const text = search?.trim();
  if (!text) return undefined;
  const pattern = likeSubstring(text);
  const { users, companies } = (await sql.one<{ users: string[]; companies: string[] }>(NAME_MATCH, [pattern, max + 1]))!;
  return users.length > max || companies.length > max ? { pattern } : { pattern, ids: { users, companies } };
}

interface Where {
  clause: string;
  values: unknown[];
}

interface Row {
  id: string;
  person_name: string;
  company_name: string | null;
  channel: LinkChannel | null;
  email_encrypted: string | null;
  phone_encrypted: string | null;
  status: LinkStatus;
  /** ISO 8601 UTC text with milliseconds, formatted by the query. */
  expires_at: string;
  updated_at: string;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const isActive = (status: LinkStatus) => (ACTIVE_LINK_STATUSES as readonly string[]).includes(status);

/** The WHERE of a filter; its parameters are `$1…$n` in `values`, the caller numbers its own after them. */
function whereOf(filter: AdminLinkFilter, match: NameMatch | undefined, now: Date): Where {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where: string[] = [];
  const { status } = filter;
  if (status === 'expired') {
    const at = param(now);
    where.push(`(l.status = 'expired' or (l.status in (${ACTIVE_LINK_SQL}) and l.expires_at <= ${at}::timestamptz))`);
  } else if (status && isActive(status)) {
    where.push(`l.status = ${param(status)} and l.expires_at > ${param(now)}::timestamptz`);
  } else if (status) {
    where.push(`l.status = ${param(status)}`);
  }
  if (match?.ids) {
    where.push(`(l.user_id = any(${param(match.ids.users)}::uuid[]) or l.company_id = any(${param(match.ids.companies)}::uuid[]))`);
  } else if (match) {
    const pattern = param(match.pattern);
    where.push(
      // `in (select …)`: a hashed subplan, one lookup per link however many names match.
      `(l.user_id in (select id from users where name ilike ${pattern}) ` +
        `or l.company_id in (select id from companies where name ilike ${pattern}))`,
    );
  }
  return { clause: where.length ? `where ${where.join(' and ')}` : '', values };
}

const JOINS = 'join users u on u.id = l.user_id left join companies c on c.id = l.company_id';

/**
 * Newest first by (created_at, id), the order of invitation_links_created_index, so an unfiltered
 * page or the export reads the index and stops at its limit.
 */
async function pageRows(sql: Sql, { clause, values }: Where, now: Date, limit: number, offset: number): Promise<Row[]> {
  const n = values.length;
  return sql.rows<Row>(
    `select l.id, u.name as person_name, c.name as company_name, l.channel, u.email_encrypted, u.phone_encrypted,
            case when l.status in (${ACTIVE_LINK_SQL}) and l.expires_at <= $${n + 1}::timestamptz then 'expired' else l.status end as status,
            ${iso('l.expires_at')} as expires_at, ${iso('l.updated_at')} as updated_at
       from invitation_links l ${JOINS} ${clause}
      order by l.created_at desc, l.id desc limit $${n + 2} offset $${n + 3}`,
    [...values, now, limit, offset],
  );
}

async function countRows(sql: Sql, { clause, values }: Where): Promise<number> {
  const row = await sql.one<{ total: string }>(`select count(*) as total from invitation_links l ${clause}`, values);
  return Number(row!.total);
}

const HOUR_MS = 3_600_000;
/** The start of the UTC hour holding `at`: the hours the tallies are kept by (migration AdminLinkTallies). */
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

type ActiveStatus = (typeof ACTIVE_LINK_STATUSES)[number];

/** What the tiles and the unsearched totals are made of: every link per stored status, active links not past expiry, mints of the last 24 hours. */
interface Tallies {
  total: Record<LinkStatus, number>;
  live: Record<ActiveStatus, number>;
  sent24h: number;
}

/**
 * The tallies at `now` ($1) in one statement, without counting every link: per status the sum of its
 * invitation_link_status_counts rows; an active status's links not past expiry are its
 * invitation_link_hour_counts hours after the one holding now ($2), plus its links expiring within
 * that hour but after now (a range of invitation_links_status_expiry_index); the last 24 hours' mints
 * are the whole hours between, plus the links minted in the two part hours at the ends (ranges of
 * invitation_links_created_index; $3 is the hour holding now - 24 h).
 */
const TALLIES = query(
  'admin-links.tallies',
  `select 'total' as what, status, sum(links)::bigint as n from invitation_link_status_counts group by status
   union all
   select 'live', kind, sum(links) from invitation_link_hour_counts where kind in (${ACTIVE_LINK_SQL}) and hour > $2::timestamptz group by kind
   union all
   select 'live', status, count(*) from invitation_links
    where status in (${ACTIVE_LINK_SQL}) and expires_at > $1::timestamptz and expires_at < $2::timestamptz + interval '1 hour'
    group by status
   union all
   select 'sent24h', null, sum(links) from invitation_link_hour_counts where kind = 'created' and hour > $3::timestamptz and hour < $2::timestamptz
   union all
   select 'sent24h', null, count(*) from invitation_links
    where created_at > $1::timestamptz - interval '24 hours' and created_at < $3::timestamptz + interval '1 hour'
   union all
   select 'sent24h', null, count(*) from invitation_links where created_at >= $2::timestamptz and created_at <= $1::timestamptz`,
);

async function talliesOf(sql: Sql, now: Date): Promise<Tallies> {
  const rows = await sql.rows<{ what: 'total' | 'live' | 'sent24h'; status: string | null; n: string | null }>(TALLIES, [
    now,
    hourOf(now),
    hourOf(new Date(now.getTime() - 24 * HOUR_MS)),
  ]);
  const tallies: Tallies = {
    total: Object.fromEntries(LINK_STATUSES.map((s) => [s, 0])) as Record<LinkStatus, number>,
    live: Object.fromEntries(ACTIVE_LINK_STATUSES.map((s) => [s, 0])) as Record<ActiveStatus, number>,
    sent24h: 0,
  };
  for (const { what, status, n } of rows) {
    const count = Number(n ?? 0);
    if (what === 'sent24h') tallies.sent24h += count;
    else if (what === 'live') tallies.live[status as ActiveStatus] += count;
    else tallies.total[status as LinkStatus] += count;
  }
  return tallies;
}

/**
 * The stats tiles, over every company's links and never filtered:
 * - sent24h: links minted (send or export: every link row is a mint) with created_at in (now - 24 h, now];
 * - used: status `used` (redeemed; a redeemed link never expires);
 * - exported: status `exported` and not past expiry, i.e. the list's total for status=exported;
 * - pending: live and unredeemed: `issued`, `sent` or `exported` and not past expiry (so exported ⊂ pending);
 * - failed: status `failed` (delivery failed);
 * - expired: status `expired`, or active and past expiry (lazy expiry), the list's total for status=expired.
 * Revoked links count in none of them.
 */
function statsOf({ total, live, sent24h }: Tallies) {
  const lazyExpired = ACTIVE_LINK_STATUSES.reduce((sum, s) => sum + total[s] - live[s], 0);
  return {
    sent24h,
    used: total.used,
    exported: live.exported,
    pending: ACTIVE_LINK_STATUSES.reduce((sum, s) => sum + live[s], 0),
    failed: total.failed,
    expired: total.expired + lazyExpired,
  };
}

/** The list's total for a status filter alone (or none), from the tallies: the same links countRows would count. */
function totalOf(tallies: Tallies, status: LinkStatus | undefined): number {
  if (!status) return LINK_STATUSES.reduce((sum, s) => sum + tallies.total[s], 0);
  if (status === 'expired') return statsOf(tallies).expired;
  if (isActive(status)) return tallies.live[status as ActiveStatus];
  return tallies.total[status];
}

/** links.csv, exactly the spec's columns. */
export const LINKS_CSV_COLUMNS = csvColumns('person', 'company', 'channel', 'destination', 'status', 'expires_at', 'last_update');
type LinksCsvKey = (typeof LINKS_CSV_COLUMNS)[number]['key'];

export function createAdminLinkReads(deps: {
  db: Sql;
  cipher: PersonalDataCipher;
  clock: () => Date;
  /** Most people (or companies) a search names by id; past it, names are tested along the scan. */
  namedMatchesMax?: number;
}) {
  const { db, cipher, clock } = deps;
  const namedMatchesMax = deps.namedMatchesMax ?? 2_000;
  const whereFor = async (filter: AdminLinkFilter, now: Date) =>
    whereOf(filter, await nameMatchOf(db, filter.search, namedMatchesMax), now);
  const decrypt = (stored: string | null) => (stored ? cipher.decrypt(stored) : null);

  // Only the contact the channel shows is decrypted.
  function destinationOf(row: Row): string | null {
    const wantsEmail = row.channel === 'email' || row.channel === 'email_sms';
    const wantsPhone = row.channel === 'sms' || row.channel === 'email_sms';
    return maskedDestination(row.channel, {
      email: wantsEmail ? decrypt(row.email_encrypted) : null,
      phone: wantsPhone ? decrypt(row.phone_encrypted) : null,
    });
  }

  const view = (row: Row) => ({
    id: row.id,
    personName: row.person_name,
    companyName: row.company_name,
    channel: row.channel,
    destination: destinationOf(row),
    status: row.status,
    expiresAt: row.expires_at,
    lastUpdate: row.updated_at,
  });

  async function list(query: AdminLinkFilter & OffsetPaging) {
    const now = clock();
    const where = await whereFor(query, now);
    // Unsearched, the total is a tally too; a search counts its matches.
    const searched = Boolean(query.search?.trim());
    const [rows, tallies, counted] = await Promise.all([
      pageRows(db, where, now, query.limit, offsetOf(query)),
      talliesOf(db, now),
      searched ? countRows(db, where) : undefined,
    ]);
    const body = offsetPageBody('links', rows.map(view), counted ?? totalOf(tallies, query.status), query);
    return { data: { ...body.data, stats: statsOf(tallies) } };
  }

  /** At most 5,000 rows, newest first; one more is read so `truncated` means rows were really left out. */
  async function exportCsv(filter: AdminLinkFilter) {
    const now = clock();
    const found = await pageRows(db, await whereFor(filter, now), now, CSV_EXPORT_ROW_CAP + 1, 0);
    const { rows, truncated } = capRows(found, CSV_EXPORT_ROW_CAP);
    const csvRow = (row: Row): Record<LinksCsvKey, CsvValue> => {
      const link = view(row);
      return {
        person: link.personName,
        company: link.companyName,
        channel: link.channel,
        destination: link.destination,
        status: link.status,
        expires_at: link.expiresAt,
        last_update: link.lastUpdate,
      };
    };
    return { filename: 'links.csv', columns: LINKS_CSV_COLUMNS, rows: rows.map(csvRow), truncated };
  }

  return { list, exportCsv };
}

export type AdminLinkReads = ReturnType<typeof createAdminLinkReads>;
