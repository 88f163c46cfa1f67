import { query, type Query, type Sql } from '../db/sql';
import { offsetOf, offsetPageBody, type OffsetPaging } from '../http/pagination';

/** A row as PostgreSQL answers it (the export maps each section to its JSON shape). */
export type Row = Record<string, unknown>;

// --- The export (./export.ts): every row of one person, section by section --------------------------

const PROFILE = query(
  'compliance.export-profile',
  `select id, name, coalesce(phone_encrypted, retained_phone_encrypted) as phone, coalesce(email_encrypted, retained_email_encrypted) as email,
          phone_proven, email_proven, pending_phone_encrypted as pending_phone, pending_email_encrypted as pending_email,
          app_role, identity_type, is_active, blocklisted_at, verified_at, managed_areas, managed_areas_write,
          created_at, updated_at, deletion_requested_at, retain_until, erased_at
     from users where id = $1`,
);
const CONSENTS = query(
  'compliance.export-consents',
  'select type, version, recorded_at from consents where user_id = $1 order by recorded_at, id',
);
const ACTIVATIONS = query(
  'compliance.export-activations',
  `select id, order_id, order_item_id, operator_id, package_id, iccid, sim_type, esim_profile, status, identity_status,
          identity_ref, identity_type, id_number_encrypted, identity_verified_at, activated_at, failed_reason,
          retain_until, deletion_requested_at, deleted_at, created_at, updated_at
     from activations where user_id = $1 order by created_at, id`,
);
const ORDERS = query(
  'compliance.export-orders',
  `select o.id, o.company_id, o.status, o.total_halalas, o.currency, o.created_at, o.updated_at,
          coalesce(json_agg(json_build_object('id', i.id, 'packageId', i.package_id, 'iccid', i.iccid, 'quantity', i.quantity,
                                              'unitMinor', i.unit_price_halalas) order by i.id) filter (where i.id is not null), '[]') as items
     from orders o left join order_items i on i.order_id = o.id
    where o.user_id = $1 group by o.id order by o.created_at, o.id`,
);
const PAYMENTS = query(
  'compliance.export-payments',
  `select id, order_id, method, provider, status, amount_minor, currency, gateway_transaction_id, receipt_number,
          failure_reason, paid_at, created_at, updated_at
     from payments where user_id = $1 order by created_at, id`,
);
const STORE_ORDERS = query(
  'compliance.export-store-orders',
  `select s.id, s.sku, s.status, s.product_snapshot, s.charge_usd_cents, s.display_currency, s.display_minor, s.payment_id,
          s.profile_encrypted, s.failure_reason, s.deliver_by, s.created_at, s.updated_at, s.issued_at, d.device_model
     from store_orders s join store_device_acknowledgements d on d.id = s.device_acknowledgement_id
    where s.user_id = $1 order by s.created_at, s.id`,
);
const DEVICES = query(
  'compliance.export-devices',
  'select id, device_model, acknowledged_at from store_device_acknowledgements where user_id = $1 order by acknowledged_at, id',
);
const ROSTER = query(
  'compliance.export-roster',
  `select r.id, r.company_id, c.name as company_name, r.status, r.nationality, r.package_id, r.created_at, r.updated_at,
          coalesce((select json_agg(json_build_object('id', l.id, 'status', l.status, 'channel', l.channel,
                                                      'expiresAt', l.expires_at, 'usedAt', l.used_at, 'createdAt', l.created_at)
                                    order by l.created_at, l.id)
                      from invitation_links l where l.roster_entry_id = r.id), '[]') as links
     from roster_entries r join companies c on c.id = r.company_id
    where r.user_id = $1 order by r.created_at, r.id`,
);
const COMPANY_MEMBERSHIPS = query(
  'compliance.export-company-memberships',
  `select m.company_id, c.name as company_name, m.role, m.created_at
     from company_users m join companies c on c.id = m.company_id where m.user_id = $1`,
);
const SESSIONS = query(
  'compliance.export-sessions',
  'select client_type, created_at, expires_at, revoked_at from sessions where user_id = $1 order by created_at, id',
);

const SECTIONS = {
  consents: CONSENTS,
  activations: ACTIVATIONS,
  orders: ORDERS,
  payments: PAYMENTS,
  storeOrders: STORE_ORDERS,
  devices: DEVICES,
  roster: ROSTER,
  memberships: COMPANY_MEMBERSHIPS,
  sessions: SESSIONS,
} satisfies Record<string, Query>;

/** The person's user row and every section's rows, or undefined for an unknown user. */
export async function exportRows(sql: Sql, userId: string) {
  const user = await sql.one<Row>(PROFILE, [userId]);
  if (!user) return undefined;
  const sections = {} as Record<keyof typeof SECTIONS, Row[]>;
  for (const [name, q] of Object.entries(SECTIONS) as Array<[keyof typeof SECTIONS, Query]>)
    sections[name] = await sql.rows<Row>(q, [userId]);
  return { user, sections };
}

// --- The compliance list -----------------------------------------------------------------------------

export interface DeletionRequestRow {
  userId: string;
  deletionRequestedAt: Date;
  retainUntil: Date;
  erasedAt: Date | null;
}

const REQUESTS = query(
  'compliance.requests',
  `select id as "userId", deletion_requested_at as "deletionRequestedAt", retain_until as "retainUntil", erased_at as "erasedAt"
     from users where deletion_requested_at is not null
    order by deletion_requested_at desc, id desc limit $1 offset $2`,
);
const REQUEST_COUNT = query('compliance.request-count', 'select count(*)::int as n from users where deletion_requested_at is not null');

/** GET /admin/compliance/deletion-requests: newest request first (users_deletion_requests_index). */
export function createComplianceReads(db: Sql) {
  async function deletionRequests(paging: OffsetPaging) {
    const rows = await db.rows<DeletionRequestRow>(REQUESTS, [paging.limit, offsetOf(paging)]);
    const count = await db.one<{ n: number }>(REQUEST_COUNT);
    const requests = rows.map((r) => ({
      userId: r.userId,
      deletionRequestedAt: r.deletionRequestedAt.toISOString(),
      retainUntil: r.retainUntil.toISOString(),
      erasedAt: r.erasedAt?.toISOString() ?? null,
    }));
    return offsetPageBody('requests', requests, count!.n, paging);
  }
  return { deletionRequests };
}

export type ComplianceReads = ReturnType<typeof createComplianceReads>;
