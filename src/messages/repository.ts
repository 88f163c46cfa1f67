// The message outbox (table message_outbox): one-time-code messages a provider did not take within
// their request. The message is stored encrypted and dropped once sent (the row goes) or given up
// (status `failed`, the column emptied). Time is the database's (now()): the API that wrote a row and
// the relay that claims it may run on different hosts.
import type { Pool, PoolClient } from 'pg';
import type { MessageFailureReason } from '../entities/message-outbox';
import type { PersonalDataCipher } from '../lib/crypto';
import type { Channel, OutgoingMessage } from '../providers/messages';
import type { QueueStatements } from '../relay/statements';

/** NOTIFY channel of new rows (a trigger on message_outbox): the relay LISTENs. */
export const OUTBOX_CHANNEL = 'message_outbox';

type Queryable = Pick<Pool, 'query'>;

export interface HandOver {
  message: OutgoingMessage;
  /** How long the message is worth delivering (what is left of its code's life). */
  expiresInMs: number;
  /** Attempts the request made, and the last one's error. */
  attempts: number;
  lastError: string;
}

/** Keeps a message for the relay, due at once, encrypted whole (recipient, text, code). */
export async function handOver(db: Queryable, cipher: PersonalDataCipher, h: HandOver): Promise<void> {
  await db.query({
    name: 'message-outbox-hand-over',
    text: `insert into message_outbox (channel, purpose, payload_encrypted, attempts, last_error, next_attempt_at, expires_at)
           values ($1, $2, $3, $4, $5, now(), now() + make_interval(secs => $6::float8))`,
    values: [
      h.message.channel,
      h.message.purpose,
      cipher.encrypt(JSON.stringify(h.message)),
      h.attempts,
      h.lastError,
      h.expiresInMs / 1000,
    ],
  });
}

/** A message the request gave up at once (the provider refused it for good): counted, never kept. */
export async function recordRefused(db: Queryable, message: Pick<OutgoingMessage, 'channel' | 'purpose'>, error: string): Promise<void> {
  await db.query({
    name: 'message-outbox-refused',
    text: `insert into message_outbox (channel, purpose, status, failure_reason, attempts, last_error, next_attempt_at, expires_at, failed_at)
           values ($1, $2, 'failed', 'refused', 1, $3, now(), now(), now())`,
    values: [message.channel, message.purpose, error],
  });
}

// --- The relay's side (its claiming transaction) ------------------------------------------------

export interface ClaimedMessage {
  id: string;
  channel: Channel;
  purpose: string;
  payload_encrypted: string;
  /** Its code has expired: give it up without trying. */
  expired: boolean;
}

export function readMessage(cipher: PersonalDataCipher, row: ClaimedMessage): OutgoingMessage {
  return JSON.parse(cipher.decrypt(row.payload_encrypted)) as OutgoingMessage;
}

const CLAIM = `select id, channel, purpose, payload_encrypted, expires_at <= now() as expired
  from message_outbox where status = 'pending' and next_attempt_at <= now()
 order by next_attempt_at, id limit $1
 for update skip locked`;
const NEXT_DUE = `select (extract(epoch from min(next_attempt_at) - now()) * 1000)::float8 as due_in_ms
  from message_outbox where status = 'pending'`;
const SENT = `delete from message_outbox where id = any($1::bigint[])`;
const GIVEN_UP = `update message_outbox set status = 'failed', failure_reason = $2, payload_encrypted = null, failed_at = now()
  where id = any($1::bigint[])`;
// Each failed message waits base x 2^attempts (capped), never past its expiry (then it is given up).
const FAILED = `update message_outbox m set attempts = m.attempts + 1, last_error = f.error,
    next_attempt_at = least(m.expires_at, now() + make_interval(secs => least($3::float8, $4::float8 * power(2, m.attempts))))
  from unnest($1::bigint[], $2::text[]) as f(id, error) where m.id = f.id`;
// The provider answers again: what waited on it is due now.
const RECOVERED = `update message_outbox set next_attempt_at = now() where status = 'pending' and next_attempt_at > now()`;

/** The relay loop's statements on message_outbox (src/relay/statements.ts). */
export const OUTBOX_STATEMENTS: QueueStatements = {
  name: 'message-outbox',
  claim: CLAIM,
  nextDue: NEXT_DUE,
  failed: FAILED,
  recovered: RECOVERED,
};

export async function dropSent(client: PoolClient, rows: ClaimedMessage[]): Promise<void> {
  await client.query({ name: 'message-outbox-sent', text: SENT, values: [rows.map((r) => r.id)] });
}

export async function giveUp(client: PoolClient, rows: ClaimedMessage[], reason: MessageFailureReason): Promise<void> {
  await client.query({ name: 'message-outbox-given-up', text: GIVEN_UP, values: [rows.map((r) => r.id), reason] });
}
