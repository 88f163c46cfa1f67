// The message relay: delivers the one-time-code messages their request handed over (./repository.ts),
// until each code expires. It runs in the worker process beside the webhook inbox and start relays,
// on the same relay loop (src/relay/loop.ts), with the worker's own message providers.
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../db/sql';
import type { PersonalDataCipher } from '../lib/crypto';
import { MessageDeliveryError, type MessageSender, type OutgoingMessage } from '../providers/messages';
import { createRelay, type Relay, type RelayQueue } from '../relay/loop';
import { queueStatements } from '../relay/statements';
import { dropSent, giveUp, OUTBOX_CHANNEL, OUTBOX_QUEUE, type ClaimedMessage } from './repository';
import type { UndeliveredCount } from './undelivered';

/** sent: the provider took it (the row goes); expired: its code expired first; refused: the provider refused it for good. */
type MessageOutcome = 'sent' | 'expired' | 'refused';
export type MessageRelay = Relay<MessageOutcome>;

export interface MessageRelayOptions {
  db: Db;
  sender: MessageSender;
  cipher: PersonalDataCipher;
  undelivered: UndeliveredCount;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  batchSize: number;
  pollIntervalMs: number;
  maxBackoffMs: number;
  baseBackoffMs?: number;
}

function readMessage(cipher: PersonalDataCipher, row: ClaimedMessage): OutgoingMessage {
  return JSON.parse(cipher.decrypt(row.payloadEncrypted)) as OutgoingMessage;
}

function outboxQueue(opts: MessageRelayOptions): RelayQueue<ClaimedMessage, MessageOutcome> {
  return {
    channel: OUTBOX_CHANNEL,
    outcomes: ['sent', 'expired', 'refused'],
    reached: 'sent',
    ...queueStatements<ClaimedMessage>(OUTBOX_QUEUE),
    async handle(row) {
      if (row.expired) return 'expired';
      try {
        await opts.sender.send(readMessage(opts.cipher, row));
        return 'sent';
      } catch (err) {
        if (err instanceof MessageDeliveryError && err.permanent) return 'refused';
        throw err; // retried after its backoff, until the code expires
      }
    },
    async mark(tx, outcome, rows) {
      if (outcome === 'sent') return dropSent(tx, rows);
      await giveUp(tx, rows, outcome);
      // What the operator counts: one line per message, channel and purpose only (no recipient, no code).
      for (const row of rows) {
        opts.logger.warn(
          { outboxId: row.id, channel: row.channel, purpose: row.purpose, reason: outcome, undelivered: opts.undelivered.add() },
          'message not delivered',
        );
      }
    },
  };
}

/**
 * At least once, until the code expires: a message is dropped in the transaction that claimed it, after
 * the provider took it, so a crash in between sends it again (a second copy of a code is harmless). A
 * message still refused at its code's expiry is given up: status `failed`, reason `expired`, its
 * encrypted content emptied, logged and counted.
 */
export function createMessageRelay(opts: MessageRelayOptions): MessageRelay {
  return createRelay({
    db: opts.db,
    queue: outboxQueue(opts),
    texts: {
      name: 'message relay',
      failing: 'the message providers do not take one-time codes',
      partial: 'some one-time codes were not taken',
      recovered: 'one-time codes go through again',
      unreadable: 'the message outbox could not be read or marked',
    },
    logger: opts.logger,
    batchSize: opts.batchSize,
    pollIntervalMs: opts.pollIntervalMs,
    maxBackoffMs: opts.maxBackoffMs,
    baseBackoffMs: opts.baseBackoffMs,
  });
}

export type MessageRelayConfig = Pick<
  Config,
  'MESSAGE_RELAY_BATCH_SIZE' | 'MESSAGE_RELAY_POLL_SECONDS' | 'MESSAGE_RELAY_MAX_BACKOFF_SECONDS'
>;

/** The relay as the worker runs it, with the worker's message providers. Stop it before closing the pool. */
export function startMessageRelay(
  config: MessageRelayConfig,
  deps: { db: Db; sender: MessageSender; cipher: PersonalDataCipher; undelivered: UndeliveredCount; logger: Logger },
): { stop(): Promise<void> } {
  const relay = createMessageRelay({
    ...deps,
    logger: deps.logger.child({ component: 'message-relay' }),
    batchSize: config.MESSAGE_RELAY_BATCH_SIZE,
    pollIntervalMs: config.MESSAGE_RELAY_POLL_SECONDS * 1000,
    maxBackoffMs: config.MESSAGE_RELAY_MAX_BACKOFF_SECONDS * 1000,
  });
  relay.start();
  deps.logger.info('message relay running');
  return relay;
}
