import { query, type Sql } from '../db/sql';
import type {
  ActivationStatus,
  CompanyStatus,
  EsimProfile,
  IdentityStatus,
  IdentityType,
  OrderStatus,
  PaymentMode,
  SimType,
} from '../entities';
import { REDEEMED_LINK } from '../links';

/**
 * The SQL of activations as the create, identity, magic-link and start paths and the workflow's
 * activities write and read them (orders, order items, activations, the seat's company rows and the
 * SIM-limit counts). The read side (status, history, records, operators) is reads.ts. Services and
 * activities call these with the pool or with the transaction they opened (docs/architecture.md).
 */

// --- Catalog, as the create reads it -------------------------------------------------------------

const ACTIVE_OPERATOR = query('activations.active-operator', `select id from operators where slug = $1 and kind = 'telecom' and is_active`);

/** An active telecom operator by slug. */
export async function findActiveOperator(sql: Sql, slug: string): Promise<{ id: string } | undefined> {
  return sql.one(ACTIVE_OPERATOR, [slug]);
}

export interface SellablePackage {
  id: string;
  /** The consumer price, whole halalas. */
  priceHalalas: number;
  operatorId: string;
  operatorSlug: string;
}

const SELLABLE_PACKAGE = query(
  'activations.sellable-package',
  `select p.id, p.price_halalas as "priceHalalas", p.operator_id as "operatorId", o.slug as "operatorSlug"
     from packages p join operators o on o.id = p.operator_id
    where p.id = $1 and p.is_active and o.is_active and o.kind = 'telecom'`,
);

/** An active package of an active telecom operator. */
export async function findSellablePackage(sql: Sql, packageId: string): Promise<SellablePackage | undefined> {
  const row = await sql.one<Omit<SellablePackage, 'priceHalalas'> & { priceHalalas: string }>(SELLABLE_PACKAGE, [packageId]);
  return row && { ...row, priceHalalas: Number(row.priceHalalas) };
}

// --- The create's rows -----------------------------------------------------------------------------

export interface NewActivationRows {
  activationId: string;
  orderId: string;
  orderItemId: string;
  userId: string;
  companyId: string | null;
  orderStatus: OrderStatus;
  /** The order total and the item's unit price, whole halalas. */
  priceHalalas: number;
  packageId: string;
  operatorId: string;
  iccid: string;
  simType: SimType;
  /** The request's Idempotency-Key, if any. */
  createKey: string | null;
  now: Date;
}

const INSERT_ORDER = query(
  'activations.insert-order',
  `insert into orders (id, user_id, company_id, status, total_halalas, currency, created_at, updated_at)
   values ($1, $2, $3, $4, $5, 'SAR', $6, $6)`,
);
const INSERT_ORDER_ITEM = query(
  'activations.insert-order-item',
  `insert into order_items (id, order_id, package_id, iccid, quantity, unit_price_halalas) values ($1, $2, $3, $4, 1, $5)`,
);
const INSERT_ACTIVATION = query(
  'activations.insert',
  `insert into activations (id, order_id, order_item_id, user_id, operator_id, package_id, iccid, sim_type, create_key, status, identity_status, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $10, 'pending', 'waiting', $9, $9)`,
);

/** Order, order item and activation (`pending` / `waiting`), in the caller's transaction. */
export async function insertActivationRows(sql: Sql, r: NewActivationRows): Promise<void> {
  await sql.exec(INSERT_ORDER, [r.orderId, r.userId, r.companyId, r.orderStatus, r.priceHalalas, r.now]);
  await sql.exec(INSERT_ORDER_ITEM, [r.orderItemId, r.orderId, r.packageId, r.iccid, r.priceHalalas]);
  await sql.exec(INSERT_ACTIVATION, [
    r.activationId,
    r.orderId,
    r.orderItemId,
    r.userId,
    r.operatorId,
    r.packageId,
    r.iccid,
    r.simType,
    r.now,
    r.createKey,
  ]);
}

/** The activation a person created with this Idempotency-Key, with what it was asked for (the item keeps the serial as sent). */
export interface KeyedCreate {
  activationId: string;
  orderId: string;
  packageId: string;
  iccid: string;
  simType: SimType;
}

const KEYED_CREATE = query(
  'activations.keyed-create',
  `select a.id as "activationId", a.order_id as "orderId", a.package_id as "packageId", i.iccid, a.sim_type as "simType"
     from activations a join order_items i on i.id = a.order_item_id
    where a.user_id = $1 and a.create_key = $2`,
);

export async function findKeyedCreate(sql: Sql, userId: string, key: string): Promise<KeyedCreate | undefined> {
  return sql.one<KeyedCreate>(KEYED_CREATE, [userId, key]);
}

// --- The company branch (the rules are company.ts's) ----------------------------------------------

export interface SeatRow {
  rosterEntryId: string | null;
  companyId: string;
  companyStatus: CompanyStatus;
  packageId: string | null;
  contractItemId: string | null;
  /** Flexible: the mint-time price snapshot, in halalas (bigint: text). */
  snapshotHalalas: string | null;
  redeemed: boolean;
}

const SEAT = query(
  'activations.seat',
  `select id as "rosterEntryId", company_id as "companyId", company_status as "companyStatus", package_id as "packageId",
          contract_item_id as "contractItemId", snapshot as "snapshotHalalas", redeemed from (
     select r.id, r.company_id, c.status as company_status, r.package_id, r.contract_item_id,
            r.unit_price_halalas as snapshot,
            exists (select 1 from invitation_links l where l.roster_entry_id = r.id and ${REDEEMED_LINK('l')}) as redeemed,
            0 as rank, r.created_at, r.id as tie
       from roster_entries r join companies c on c.id = r.company_id
      where r.user_id = $1
     union all
     select null, l.company_id, c.status, null, null, null,
            exists (select 1 from invitation_links u where u.user_id = l.user_id and u.company_id = l.company_id and ${REDEEMED_LINK('u')}),
            1, l.created_at, l.id
       from invitation_links l join companies c on c.id = l.company_id
      where l.user_id = $1
   ) seat
   order by rank, created_at desc, tie desc limit 1`,
);

/**
 * One statement, so a consumer's create pays one round trip: the caller's newest roster entry, else
 * (a company invitation link names them, no entry does) a seat with no entry.
 */
export async function findSeatRow(sql: Sql, userId: string): Promise<SeatRow | undefined> {
  return sql.one<SeatRow>(SEAT, [userId]);
}

const ACTIVE_CONTRACT = query(
  'activations.active-contract',
  `select id, payment_mode as "paymentMode" from contracts where company_id = $1 and status = 'active'`,
);

export async function findActiveContract(sql: Sql, companyId: string): Promise<{ id: string; paymentMode: PaymentMode } | undefined> {
  return sql.one(ACTIVE_CONTRACT, [companyId]);
}

const CONTRACT_LINE = query(
  'activations.contract-line',
  `select package_id as "packageId", unit_price_halalas as "unitPriceHalalas" from contract_items where id = $1 and contract_id = $2`,
);

/** A line of the contract (its unit price is bigint: text). */
export async function findContractLine(
  sql: Sql,
  contractId: string,
  itemId: string,
): Promise<{ packageId: string; unitPriceHalalas: string } | undefined> {
  return sql.one(CONTRACT_LINE, [itemId, contractId]);
}

const SEAT_USED = query(
  'activations.seat-used',
  `select exists (select 1 from activations where user_id = $1 and status in ('pending', 'in_progress', 'activated')) as used`,
);

/** A pending, in-progress or activated activation of the person. */
export async function holdsLiveActivation(sql: Sql, userId: string): Promise<boolean> {
  const row = await sql.one<{ used: boolean }>(SEAT_USED, [userId]);
  return row?.used ?? false;
}

const INSERT_CORPORATE_PAYMENT = query(
  'activations.insert-corporate-payment',
  `insert into payments (order_id, user_id, method, provider, status, amount_minor, currency, idempotency_key, request_fingerprint,
                         receipt_number, paid_at, created_at, updated_at)
   values ($1, $2, 'company_account', 'company', 'completed', $3, 'SAR', $4, $5, $6, $7, $7, $7) returning id`,
);

/** The company seat's synthetic payment (company.ts says what it is); answers its id. */
export async function insertCorporatePaymentRow(
  sql: Sql,
  p: { orderId: string; userId: string; priceHalalas: number; key: string; fingerprint: string; receiptNumber: string; now: Date },
): Promise<string> {
  const row = await sql.one<{ id: string }>(INSERT_CORPORATE_PAYMENT, [
    p.orderId,
    p.userId,
    p.priceHalalas,
    p.key,
    p.fingerprint,
    p.receiptNumber,
    p.now,
  ]);
  return row!.id;
}

// --- The SIM limit (the rule and its three gates are sim-limit.ts's) --------------------------------

const LOCK_PERSON = query('activations.lock-person', 'select identity_type as "identityType" from users where id = $1 for update');

/** Locks the user row (serializes the account's creates) and reads its current identity type. */
export async function lockPerson(sql: Sql, userId: string): Promise<IdentityType> {
  const user = await sql.one<{ identityType: IdentityType }>(LOCK_PERSON, [userId]);
  return user!.identityType;
}

// The prefix keeps these keys apart from the OTP locks, which also hash a keyed hash (src/auth/otp.ts).
const LOCK_IDENTITY = query('activations.lock-identity', `select pg_advisory_xact_lock(hashtextextended('sim-limit:' || $1, 0))`);

/** Gates 2 and 3: serializes every SIM-limit decision about one verified identity, on any account. */
export async function lockIdentity(sql: Sql, idNumberHash: string): Promise<void> {
  await sql.exec(LOCK_IDENTITY, [idNumberHash]);
}

const LIVE_ACTIVATIONS = query(
  'activations.live-count',
  `select count(*)::int as n from activations a
    where a.status not in ('failed', 'cancelled') and a.deleted_at is null
      and (a.user_id = $1
           or a.id_number_hash in (select v.id_number_hash from activations v
                                    where v.user_id = $1 and v.identity_status = 'completed' and v.id_number_hash is not null))`,
);

/** Gate 1: live activations of the account and of every identity it has verified. */
export async function liveActivations(sql: Sql, userId: string): Promise<number> {
  const row = await sql.one<{ n: number }>(LIVE_ACTIVATIONS, [userId]);
  return row!.n;
}

/**
 * Whose SIMs the limit's gates 2 and 3 count (sim-limit.ts): the verified identity. An activation without
 * a hash (a verification always writes one; only rows from before it could lack it) falls back to its
 * account, under lockPerson.
 */
export type SimHolder = { idNumberHash: string } | { userId: string };

// Whose rows a holder's count reads: one text per kind of holder, each its own named statement.
const byHolder = (make: (where: string, kind: 'identity' | 'user') => ReturnType<typeof query>) => ({
  identity: make('id_number_hash = $1', 'identity'),
  user: make('user_id = $1', 'user'),
});
const holderKey = (holder: SimHolder): ['identity' | 'user', string] =>
  'idNumberHash' in holder ? ['identity', holder.idNumberHash] : ['user', holder.userId];

const VERIFIED_OTHERS = byHolder((where, kind) =>
  query(
    `activations.verified-others-${kind}`,
    `select count(*)::int as n from activations where ${where} and id <> $2 and identity_status = 'completed'
        and status not in ('failed', 'cancelled') and deleted_at is null`,
  ),
);

/** Gate 2: the holder's other live activations whose verification completed, on any account. */
export async function verifiedOthers(sql: Sql, holder: SimHolder, activationId: string): Promise<number> {
  const [kind, key] = holderKey(holder);
  const row = await sql.one<{ n: number }>(VERIFIED_OTHERS[kind], [key, activationId]);
  return row!.n;
}

const HANDED_OFF_OTHERS = byHolder((where, kind) =>
  query(
    `activations.handed-off-others-${kind}`,
    `select count(*)::int as n from activations where ${where} and id <> $2 and status in ('in_progress', 'activated')
        and deleted_at is null`,
  ),
);

/** Gate 3: the holder's other activations handed to the operator, on any account. */
export async function handedOffOthers(sql: Sql, holder: SimHolder, activationId: string): Promise<number> {
  const [kind, key] = holderKey(holder);
  const row = await sql.one<{ n: number }>(HANDED_OFF_OTHERS[kind], [key, activationId]);
  return row!.n;
}

// --- Identity verification, as the owner's routes read it ------------------------------------------

export interface OwnedIdentity {
  status: ActivationStatus;
  identityStatus: IdentityStatus;
  identityVerifiedAt: Date | null;
  /** The current verification, if one was started: what a repeated request joins. */
  identityRef: string | null;
  identityType: IdentityType | null;
  idNumberHash: string | null;
  identityStartedAt: Date | null;
  identityCodeEncrypted: string | null;
  identityAttempts: number;
}

const IDENTITY_COLUMNS = `status, identity_status as "identityStatus", identity_verified_at as "identityVerifiedAt",
  identity_ref as "identityRef", identity_type as "identityType", id_number_hash as "idNumberHash",
  identity_started_at as "identityStartedAt", identity_code_encrypted as "identityCodeEncrypted",
  identity_attempts as "identityAttempts"`;

const OWNED_IDENTITY = query(
  'activations.owned-identity',
  `select ${IDENTITY_COLUMNS} from activations where id = $1 and user_id = $2 and deleted_at is null`,
);

/** The caller's own, non-deleted activation's identity state. */
export async function findOwnedIdentity(sql: Sql, userId: string, activationId: string): Promise<OwnedIdentity | undefined> {
  return sql.one<OwnedIdentity>(OWNED_IDENTITY, [activationId, userId]);
}

const VERIFICATION = query('activations.verification', `select ${IDENTITY_COLUMNS} from activations where id = $1 and deleted_at is null`);

/** Any non-deleted activation's identity state (tools and tests that drive a run). */
export async function findVerification(sql: Sql, activationId: string): Promise<OwnedIdentity | undefined> {
  return sql.one<OwnedIdentity>(VERIFICATION, [activationId]);
}

const LOCKED_VERIFICATION = query(
  'activations.locked-verification',
  `select ${IDENTITY_COLUMNS} from activations where id = $1 and deleted_at is null for update`,
);

/** The same, locked for the transaction that records a new verification (a deletion or the run's end waits). */
export async function lockVerification(sql: Sql, activationId: string): Promise<OwnedIdentity | undefined> {
  return sql.one<OwnedIdentity>(LOCKED_VERIFICATION, [activationId]);
}

// --- What magic-link redemption reads (latest.ts) ---------------------------------------------------

export interface LatestActivationRow {
  id: string;
  packageId: string | null;
  status: ActivationStatus;
  identityStatus: IdentityStatus;
  identityRef: string | null;
}

const LATEST = query(
  'activations.latest',
  `select id, package_id as "packageId", status, identity_status as "identityStatus", identity_ref as "identityRef" from activations
    where user_id = $1 and deleted_at is null order by created_at desc, id desc limit 1`,
);

/** The person's most recent activation. */
export async function findLatestActivation(sql: Sql, userId: string): Promise<LatestActivationRow | undefined> {
  return sql.one<LatestActivationRow>(LATEST, [userId]);
}

const SEAT_PACKAGE = query(
  'activations.seat-package',
  `select coalesce(l.package_id, lci.package_id, r.package_id, rci.package_id) as "packageId"
     from invitation_links l
     left join contract_items lci on lci.id = l.contract_item_id
     left join roster_entries r on r.id = l.roster_entry_id
     left join contract_items rci on rci.id = r.contract_item_id
    where l.id = $1`,
);

/**
 * The seat's package: the one the mint wrote on the link (a prepaid link carries its contract
 * line's package, a flexible one the entry's), else the link's contract line, else the roster
 * entry's own package or line (links minted before those columns were written).
 */
export async function findSeatPackageId(sql: Sql, linkId: string): Promise<string | null> {
  return (await sql.one<{ packageId: string | null }>(SEAT_PACKAGE, [linkId]))?.packageId ?? null;
}

// --- The run's late start (start.ts) -----------------------------------------------------------------

const PAID_ORDER = query(
  'activations.paid-order',
  `select (select p.id from payments p where p.order_id = o.id and p.status = 'completed' order by p.paid_at limit 1) as "paymentId"
     from orders o where o.id = $1 and o.status = 'paid'`,
);

/** A paid order and its completed payment; undefined when unpaid. */
export async function findPaidOrder(sql: Sql, orderId: string): Promise<{ paymentId: string | null } | undefined> {
  return sql.one(PAID_ORDER, [orderId]);
}

// --- The workflow's activities (activities/activations.ts) -------------------------------------------

export interface RunActivation {
  id: string;
  iccid: string;
  simType: SimType;
  status: ActivationStatus;
  userId: string;
  orderId: string;
  operatorSlug: string;
  esimProfile: EsimProfile | null;
}

const RUN_ACTIVATION = query(
  'activations.run-activation',
  `select a.id, a.iccid, a.sim_type as "simType", a.status, a.user_id as "userId", a.order_id as "orderId",
          a.esim_profile as "esimProfile", o.slug as "operatorSlug"
     from activations a join operators o on o.id = a.operator_id where a.id = $1`,
);

/** The activation with its operator's slug, as the handoff needs it. */
export async function findRunActivation(sql: Sql, activationId: string): Promise<RunActivation | undefined> {
  return sql.one<RunActivation>(RUN_ACTIVATION, [activationId]);
}

const RECORD_IDENTITY_START = query(
  'activations.record-identity-start',
  `update activations set identity_ref = $2, identity_status = 'waiting', identity_verified_at = null, identity_type = $3,
     id_number_encrypted = $4, id_number_hash = $5, updated_at = $6, identity_started_at = $6,
     identity_attempts = coalesce($7, identity_attempts), identity_code_encrypted = $8 where id = $1`,
);

/**
 * A verification started at the provider: its reference, the identity it is about (encrypted, keyed
 * hash), and, when the API started it, its attempt number and app code (encrypted).
 */
export async function recordIdentityStart(
  sql: Sql,
  v: {
    activationId: string;
    transId: string;
    identityType: IdentityType;
    idNumberEncrypted: string;
    idNumberHash: string;
    now: Date;
    attempt?: number;
    codeEncrypted?: string;
  },
): Promise<void> {
  await sql.exec(RECORD_IDENTITY_START, [
    v.activationId,
    v.transId,
    v.identityType,
    v.idNumberEncrypted,
    v.idNumberHash,
    v.now,
    v.attempt ?? null,
    v.codeEncrypted ?? null,
  ]);
}

const ORDER_STATUS = query(
  'activations.order-status',
  'select o.status from activations a join orders o on o.id = a.order_id where a.id = $1',
);

export async function findOrderStatus(sql: Sql, activationId: string): Promise<OrderStatus | undefined> {
  return (await sql.one<{ status: OrderStatus }>(ORDER_STATUS, [activationId]))?.status;
}

export interface VerificationOwner {
  userId: string;
  identityType: IdentityType | null;
  idNumberHash: string | null;
}

const CURRENT_VERIFICATION = query(
  'activations.current-verification',
  `select user_id as "userId", identity_type as "identityType", id_number_hash as "idNumberHash"
     from activations where id = $1 and identity_ref = $2`,
);

/** The activation, only while `transId` is its current verification. */
export async function findCurrentVerification(sql: Sql, activationId: string, transId: string): Promise<VerificationOwner | undefined> {
  return sql.one<VerificationOwner>(CURRENT_VERIFICATION, [activationId, transId]);
}

const RECORD_IDENTITY_STATUS = query(
  'activations.record-identity-status',
  `update activations set identity_status = $3, identity_verified_at = $4, updated_at = $5 where id = $1 and identity_ref = $2`,
);

export async function recordIdentityStatus(
  sql: Sql,
  v: { activationId: string; transId: string; identityStatus: IdentityStatus; verifiedAt: Date | null; now: Date },
): Promise<void> {
  await sql.exec(RECORD_IDENTITY_STATUS, [v.activationId, v.transId, v.identityStatus, v.verifiedAt, v.now]);
}

const SET_PERSON_TYPE = query('activations.set-person-type', 'update users set identity_type = $2, updated_at = $3 where id = $1');

/** The person's identity type, as a completed verification proved it. */
export async function setPersonIdentityType(sql: Sql, userId: string, identityType: IdentityType, now: Date): Promise<void> {
  await sql.exec(SET_PERSON_TYPE, [userId, identityType, now]);
}

const OWNER = query('activations.owner', 'select user_id as "userId", id_number_hash as "idNumberHash" from activations where id = $1');

export async function findOwner(sql: Sql, activationId: string): Promise<{ userId: string; idNumberHash: string | null } | undefined> {
  return sql.one(OWNER, [activationId]);
}

export interface HandoffState {
  identityType: IdentityType | null;
  personType: IdentityType;
  status: ActivationStatus;
  failedReason: string | null;
}

const HANDOFF_STATE = query(
  'activations.handoff-state',
  `select a.identity_type as "identityType", u.identity_type as "personType", a.status, a.failed_reason as "failedReason"
     from activations a join users u on u.id = a.user_id where a.id = $1`,
);

export async function findHandoffState(sql: Sql, activationId: string): Promise<HandoffState | undefined> {
  return sql.one<HandoffState>(HANDOFF_STATE, [activationId]);
}

const MARK_IN_PROGRESS = query(
  'activations.mark-in-progress',
  `update activations set status = 'in_progress', estimated_activation_seconds = $2, updated_at = $3 where id = $1`,
);

export async function markInProgress(sql: Sql, activationId: string, estimatedSeconds: number | null, now: Date): Promise<void> {
  await sql.exec(MARK_IN_PROGRESS, [activationId, estimatedSeconds, now]);
}

const MOVE_STATUS = query(
  'activations.move-status',
  `update activations set status = $2, failed_reason = coalesce($3, failed_reason), estimated_activation_seconds = $4, updated_at = $5
    where id = $1 and status not in ('activated', 'failed', 'cancelled')`,
);

/** A status the run moved to, unless the activation already ended. */
export async function moveStatus(
  sql: Sql,
  m: { activationId: string; status: ActivationStatus; failedReason: string | null; estimatedSeconds: number | null; now: Date },
): Promise<void> {
  await sql.exec(MOVE_STATUS, [m.activationId, m.status, m.failedReason, m.estimatedSeconds, m.now]);
}

const LOCK_WITH_ORDER = query(
  'activations.lock-with-order',
  `select a.status, a.order_id as "orderId", o.status as "orderStatus" from activations a join orders o on o.id = a.order_id
    where a.id = $1 for update of a, o`,
);

/** Locks the activation and its order (a payment settling at the same moment waits or is seen). */
export async function lockWithOrder(
  sql: Sql,
  activationId: string,
): Promise<{ status: ActivationStatus; orderId: string; orderStatus: OrderStatus } | undefined> {
  return sql.one(LOCK_WITH_ORDER, [activationId]);
}

const END = query(
  'activations.end',
  `update activations set status = $2, failed_reason = coalesce($3, failed_reason), estimated_activation_seconds = null, updated_at = $4
    where id = $1`,
);

export async function endActivationRow(
  sql: Sql,
  e: { activationId: string; status: 'failed' | 'cancelled'; reason: string | null; now: Date },
): Promise<void> {
  await sql.exec(END, [e.activationId, e.status, e.reason, e.now]);
}

const CANCEL_ORDER = query('activations.cancel-order', `update orders set status = 'cancelled', updated_at = $2 where id = $1`);

export async function cancelOrder(sql: Sql, orderId: string, now: Date): Promise<void> {
  await sql.exec(CANCEL_ORDER, [orderId, now]);
}

const COMPLETED_PAYMENT = query(
  'activations.completed-payment',
  `select id from payments where order_id = $1 and status = 'completed' order by paid_at, id limit 1`,
);

/** The order's first completed payment (the one a refund is for). */
export async function findCompletedPayment(sql: Sql, orderId: string): Promise<{ id: string } | undefined> {
  return sql.one(COMPLETED_PAYMENT, [orderId]);
}

const MARK_ACTIVATED = query(
  'activations.mark-activated',
  `update activations set status = 'activated', activated_at = coalesce(activated_at, $2), estimated_activation_seconds = 0,
     iccid = coalesce($3, iccid), esim_profile = coalesce($4::jsonb, esim_profile), updated_at = $2 where id = $1`,
);

/** Activated: the first activation time stays; an operator-assigned ICCID and an issued profile replace what was there. */
export async function markActivated(
  sql: Sql,
  activationId: string,
  change: { iccid?: string; profile?: EsimProfile; now: Date },
): Promise<void> {
  await sql.exec(MARK_ACTIVATED, [activationId, change.now, change.iccid ?? null, change.profile ? JSON.stringify(change.profile) : null]);
}

const ESIM_MAIL = query(
  'activations.esim-mail',
  `select u.email_encrypted as "emailEncrypted", a.esim_profile as "esimProfile"
     from activations a join users u on u.id = a.user_id where a.id = $1`,
);

/** Where the eSIM e-mail goes (encrypted) and what it carries. */
export async function findEsimMail(
  sql: Sql,
  activationId: string,
): Promise<{ emailEncrypted: string | null; esimProfile: EsimProfile | null } | undefined> {
  return sql.one(ESIM_MAIL, [activationId]);
}
