import { query, type Sql } from '../db/sql';
import type { StoreOrderStatus } from '../entities';

/** What a deletion or an erasure reads of the user first, under its lock. */
export interface DeletionSubject {
  id: string;
  deletionRequestedAt: Date | null;
  erasedAt: Date | null;
  phoneEncrypted: string | null;
  emailEncrypted: string | null;
  retainedPhoneEncrypted: string | null;
  retainedEmailEncrypted: string | null;
  pendingPhoneEncrypted: string | null;
  pendingEmailEncrypted: string | null;
}

const LOCK_SUBJECT = query(
  'compliance.lock-subject',
  `select id, deletion_requested_at as "deletionRequestedAt", erased_at as "erasedAt",
          phone_encrypted as "phoneEncrypted", email_encrypted as "emailEncrypted",
          retained_phone_encrypted as "retainedPhoneEncrypted", retained_email_encrypted as "retainedEmailEncrypted",
          pending_phone_encrypted as "pendingPhoneEncrypted", pending_email_encrypted as "pendingEmailEncrypted"
     from users where id = $1 for update`,
);

export async function lockSubject(sql: Sql, userId: string): Promise<DeletionSubject | undefined> {
  return sql.one<DeletionSubject>(LOCK_SUBJECT, [userId]);
}

// --- The deletion request --------------------------------------------------------------------------

/**
 * Deactivates the account (the trigger revoke_sessions_of_deactivated_user revokes its sessions) and
 * moves its phone and e-mail out of the identifier columns: their unique hashes go, so a new
 * registration may take them; the ciphertexts stay as the retained copy. Claims on other accounts'
 * identifiers are dropped.
 */
const SOFT_DELETE_USER = query(
  'compliance.soft-delete-user',
  `update users set is_active = false, deletion_requested_at = $2, retain_until = $3,
          retained_phone_encrypted = phone_encrypted, retained_email_encrypted = email_encrypted,
          phone_encrypted = null, phone_hash = null, email_encrypted = null, email_hash = null,
          pending_phone_encrypted = null, pending_phone_hash = null, pending_email_encrypted = null, pending_email_hash = null,
          updated_at = $2
    where id = $1`,
);

export async function softDeleteUser(sql: Sql, userId: string, now: Date, retainUntil: Date): Promise<void> {
  await sql.exec(SOFT_DELETE_USER, [userId, now, retainUntil]);
}

const DELETE_CHALLENGES = query('compliance.delete-challenges', 'delete from otp_challenges where user_id = $1');

/** Codes sent to the account (sign-in, phone and e-mail changes), with the keyed hashes they were sent to. */
export async function deleteChallenges(sql: Sql, userId: string): Promise<number> {
  return sql.exec(DELETE_CHALLENGES, [userId]);
}

const PENDING_ACTIVATIONS = query(
  'compliance.pending-activations',
  `select id from activations where user_id = $1 and status = 'pending' and deleted_at is null order by created_at, id`,
);

export async function pendingActivationIds(sql: Sql, userId: string): Promise<string[]> {
  return (await sql.rows<{ id: string }>(PENDING_ACTIVATIONS, [userId])).map((r) => r.id);
}

const LOCK_STORE_ORDERS = query(
  'compliance.lock-store-orders',
  `select s.id, s.status from store_orders s join orders r on r.id = s.id where s.user_id = $1 order by s.id for update of s, r`,
);

/** Every store order of the user with its orders row, locked (as the store's run and requeue lock one), in id order. */
export async function lockStoreOrders(sql: Sql, userId: string): Promise<{ id: string; status: StoreOrderStatus }[]> {
  return sql.rows<{ id: string; status: StoreOrderStatus }>(LOCK_STORE_ORDERS, [userId]);
}

/** Unpaid store orders end `expired` (the only end an unpaid order has), with their orders row cancelled. */
const EXPIRE_UNPAID_STORE_ORDERS = query(
  'compliance.expire-unpaid-store-orders',
  `with ended as (
     update store_orders set status = 'expired', failure_reason = $3, updated_at = $2
      where user_id = $1 and status = 'pending_payment'
      returning id)
   update orders o set status = 'cancelled', updated_at = $2 from ended
    where o.id = ended.id and o.status = 'pending_payment'
   returning ended.id`,
);

export async function expireUnpaidStoreOrders(sql: Sql, userId: string, now: Date, reason: string): Promise<string[]> {
  return (await sql.rows<{ id: string }>(EXPIRE_UNPAID_STORE_ORDERS, [userId, now, reason])).map((r) => r.id);
}

const DROP_PENDING_STARTS = query('compliance.drop-pending-starts', 'delete from workflow_starts where workflow_id = any($1::text[])');

const DROP_PENDING_SIGNALS = query(
  'compliance.drop-pending-signals',
  'delete from workflow_signals where workflow_id = any($1::text[]) and delivered_at is null',
);

/**
 * Runs not started yet, and signals not sent yet, for what the deletion ended: there is nothing left for
 * them to do. Call it before writing the runs' cancellations (src/compliance/deletion.ts), which it would drop.
 */
export async function dropPendingStarts(sql: Sql, workflowIds: string[]): Promise<void> {
  if (!workflowIds.length) return;
  await sql.exec(DROP_PENDING_STARTS, [workflowIds]);
  await sql.exec(DROP_PENDING_SIGNALS, [workflowIds]);
}

const STAMP_ACTIVATIONS = query(
  'compliance.stamp-activations',
  `update activations set deletion_requested_at = $2, retain_until = $3
    where user_id = $1 and deleted_at is null and deletion_requested_at is null`,
);

export async function stampActivations(sql: Sql, userId: string, now: Date, retainUntil: Date): Promise<number> {
  return sql.exec(STAMP_ACTIVATIONS, [userId, now, retainUntil]);
}

// --- The erasure -------------------------------------------------------------------------------------

/** Name, every identifier (held, retained or claimed) and its hash go; the row stays for what refers to it. */
const ERASE_USER = query(
  'compliance.erase-user',
  `update users set name = '', phone_encrypted = null, phone_hash = null, email_encrypted = null, email_hash = null,
          pending_phone_encrypted = null, pending_phone_hash = null, pending_email_encrypted = null, pending_email_hash = null,
          retained_phone_encrypted = null, retained_email_encrypted = null, erased_at = $2, updated_at = $2
    where id = $1`,
);

export async function eraseUser(sql: Sql, userId: string, now: Date): Promise<void> {
  await sql.exec(ERASE_USER, [userId, now]);
}

/** The id numbers, their hashes and the verification's app code go; the rows are soft-deleted (GET /activations/records hides them). */
const ERASE_ACTIVATIONS = query(
  'compliance.erase-activations',
  `update activations set id_number_encrypted = null, id_number_hash = null, identity_code_encrypted = null, deleted_at = $2
    where user_id = $1 and deleted_at is null`,
);

export async function eraseActivations(sql: Sql, userId: string, now: Date): Promise<number> {
  return sql.exec(ERASE_ACTIVATIONS, [userId, now]);
}

const DELETE_OTP_REQUESTS = query('compliance.delete-otp-requests', 'delete from otp_requests where identifier_hash = any($1::text[])');

/** The OTP request counts kept under the person's identifiers' keyed hashes. */
export async function deleteOtpRequests(sql: Sql, hashes: string[]): Promise<void> {
  if (hashes.length) await sql.exec(DELETE_OTP_REQUESTS, [hashes]);
}

const DELETE_PENDING_MESSAGES = query(
  'compliance.delete-pending-messages',
  `delete from message_outbox where status = 'pending' and recipient_hash = any($1::text[])`,
);

/** Codes still waiting for the message relay to reach one of the person's identifiers (the message itself holds them). */
export async function deletePendingMessages(sql: Sql, hashes: string[]): Promise<number> {
  return hashes.length ? sql.exec(DELETE_PENDING_MESSAGES, [hashes]) : 0;
}

/** NOTIFY channel of erasures: every process forgets the decrypted values it keeps (src/compliance/forget.ts). */
export const ERASED_CHANNEL = 'personal_data_erased';

const ANNOUNCE_ERASURE = query('compliance.announce-erasure', `select pg_notify('${ERASED_CHANNEL}', '')`);

/** Heard by every process once the erasure commits (nothing of the person in the payload). */
export async function announceErasure(sql: Sql): Promise<void> {
  await sql.exec(ANNOUNCE_ERASURE);
}

const DELETE_SESSIONS = query('compliance.delete-sessions', 'delete from sessions where user_id = $1');

/** Sessions (revoked since the request) and the device hashes they remember. */
export async function deleteSessions(sql: Sql, userId: string): Promise<void> {
  await sql.exec(DELETE_SESSIONS, [userId]);
}

const ERASE_ROSTER = query('compliance.erase-roster', 'update roster_entries set nationality = null where user_id = $1');

/** A company's roster keeps the seat (nothing drawn is freed) without the person's nationality. */
export async function eraseRosterDetails(sql: Sql, userId: string): Promise<void> {
  await sql.exec(ERASE_ROSTER, [userId]);
}

/**
 * The audit trail keeps what happened, not who the person was. The rows about the user lose every name
 * they carry: `name` (admin_user.deleted's) and a rename's `before`/`after` (admin_user.renamed stays, saying
 * a rename happened). No action puts the person's phone, e-mail or id number in details (src/audit/writer.ts).
 * The rows the person acted in lose the address and user agent.
 */
const ERASE_AUDIT_NAMES = query(
  'compliance.erase-audit-names',
  `update audit_events
      set details = case when action = 'admin_user.renamed' then details - array['name', 'before', 'after'] else details - 'name' end
    where entity_type = 'user' and entity_id = $1
      and (details ? 'name' or (action = 'admin_user.renamed' and details ?| array['before', 'after']))`,
);
const ERASE_AUDIT_CLIENT = query(
  'compliance.erase-audit-client',
  'update audit_events set ip = null, user_agent = null where actor_user_id = $1 and (ip is not null or user_agent is not null)',
);

export async function eraseAuditTrail(sql: Sql, userId: string): Promise<void> {
  await sql.exec(ERASE_AUDIT_NAMES, [userId]);
  await sql.exec(ERASE_AUDIT_CLIENT, [userId]);
}

const DUE = query(
  'compliance.due',
  `select id from users where retain_until < $1 and erased_at is null order by retain_until, id limit $2`,
);

/** Accounts whose retention ended before `asOf` and still hold personal data, oldest first (users_retention_due_index). */
export async function dueForErasure(sql: Sql, asOf: Date, limit: number): Promise<string[]> {
  return (await sql.rows<{ id: string }>(DUE, [asOf, limit])).map((r) => r.id);
}
