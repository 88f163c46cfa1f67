// The message outbox (table message_outbox): one-time-code messages a provider did not take within
// their request. The message is stored encrypted and dropped once sent (the row goes) or given up
// (status `failed`, the column emptied). Time is the database's (now()): the API that wrote a row and
// the relay that claims it may run on different hosts.
import { query, type Sql } from '../db/sql';
import type { MessageFailureReason } from '../entities/message-outbox';
import type { Channel, OutgoingMessage } from '../providers/messages';
import type { QueueTable } from '../relay/statements';

/** NOTIFY channel of new rows (a trigger on message_outbox): the relay LISTENs. */
export const OUTBOX_CHANNEL = 'message_outbox';

export interface HandOver {
  message: Pick<OutgoingMessage, 'channel' | 'purpose'>;
  /** The whole message (recipient, text, code), encrypted with the personal-data cipher. */
  payloadEncrypted: string;
  /** The recipient's keyed hash (an erasure finds the person's messages by it). */
  recipientHash: string;
  /** How long the message is worth delivering (what is left of its code's life). */
  expiresInMs: number;
  /** Attempts the request made, and the last one's error. */
  attempts: number;
  lastError: string;
}

const HAND_OVER = query(
  'messages.hand-over',
  `insert into message_outbox (channel, purpose, payload_encrypted, attempts, last_error, next_attempt_at, expires_at, recipient_hash)
   values ($1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6::float8), $7)`,
);

/** Keeps a message for the relay, due at once. */
export async function handOver(sql: Sql, h: HandOver): Promise<void> {
  await sql.exec(HAND_OVER, [
    h.message.channel,
    h.message.purpose,
    h.payloadEncrypted,
    h.attempts,
    h.lastError,
    h.expiresInMs / 1000,
    h.recipientHash,
  ]);
}

const REFUSED = query(
  'messages.refused',
  `insert into message_outbox (channel, purpose, status, failure_reason, attempts, last_error, next_attempt_at, expires_at, failed_at)
   values ($1, $2, 'failed', 'refused', 1, $3, now(), now(), now())`,
);

/** A message the request gave up at once (the provider refused it for good): counted, never kept. */
export async function recordRefused(sql: Sql, message: Pick<OutgoingMessage, 'channel' | 'purpose'>, error: string): Promise<void> {
  await sql.exec(REFUSED, [message.channel, message.purpose, error]);
}

// --- The relay's side (its claiming transaction) ------------------------------------------------

export interface ClaimedMessage {
  id: string;
  channel: Channel;
  purpose: string;
  payloadEncrypted: string;
  /** Its code has expired: give it up without trying. */
  expired: boolean;
}

/** The relay loop's queue on message_outbox (src/relay/statements.ts). */
export const OUTBOX_QUEUE: QueueTable = {
  name: 'messages.outbox',
  table: 'message_outbox',
  alias: 'm',
  columns: `m.id, m.channel, m.purpose, m.payload_encrypted as "payloadEncrypted", m.expires_at <= now() as expired`,
  pending: `m.status = 'pending'`,
  // A failed message waits its backoff, never past its expiry (then it is given up).
  waitsAtMost: 'm.expires_at',
};

const SENT = query('messages.outbox-sent', `delete from message_outbox where id = any($1::bigint[])`);
const GIVEN_UP = query(
  'messages.outbox-given-up',
  `update message_outbox set status = 'failed', failure_reason = $2, payload_encrypted = null, failed_at = now()
    where id = any($1::bigint[])`,
);

export async function dropSent(sql: Sql, rows: ClaimedMessage[]): Promise<void> {
  await sql.exec(SENT, [rows.map((r) => r.id)]);
}

export async function giveUp(sql: Sql, rows: ClaimedMessage[], reason: MessageFailureReason): Promise<void> {
  await sql.exec(GIVEN_UP, [rows.map((r) => r.id), reason]);
}
