// One-time codes through a message provider that may blip: the request tries a few times within a
// short budget, then hands the message to the outbox (./repository.ts), which the worker's message relay
// (./relay.ts) delivers until the code expires. The request then answers as the spec says: a blip never
// turns into a 500. A definite refusal (a refused recipient) is not retried: it is recorded, logged
// and counted, as is a code the relay could not deliver before it expired.
import type { Logger } from 'pino';
import type { Db } from '../db/sql';
import type { PersonalDataCipher } from '../lib/crypto';
import { MessageDeliveryError, type MessageSender, type OutgoingMessage } from '../providers/messages';
import { errorText } from '../relay/loop';
import { handOver, recordRefused } from './repository';
import type { UndeliveredCount } from './undelivered';

export interface OtpSenderDeps {
  /** The providers' sender (SMS, e-mail). */
  sender: MessageSender;
  db: Db;
  cipher: PersonalDataCipher;
  undelivered: UndeliveredCount;
  logger: Pick<Logger, 'warn'>;
  /** How long the request may spend on retries before it hands over (default 2 s). */
  budgetMs?: number;
  /** The first wait between tries, doubled each time (default 200 ms). */
  firstDelayMs?: number;
}

const DEFAULT_BUDGET_MS = 2_000;
const DEFAULT_FIRST_DELAY_MS = 200;

/** Whether sending the same message again might work (anything but a definite refusal). */
const transient = (err: unknown) => !(err instanceof MessageDeliveryError && err.permanent);

/**
 * A MessageSender for one-time codes (content `{ kind: 'otp', ttlSeconds }`): send() resolves once the
 * provider took the message, or once it is recorded for the relay or as refused. It throws only when
 * Postgres cannot keep it either. Any other message goes straight to the provider.
 */
export function createOtpSender(deps: OtpSenderDeps): MessageSender {
  const budgetMs = deps.budgetMs ?? DEFAULT_BUDGET_MS;
  const firstDelayMs = deps.firstDelayMs ?? DEFAULT_FIRST_DELAY_MS;

  return {
    async send(message) {
      if (message.content?.kind !== 'otp') return deps.sender.send(message);
      const started = Date.now();
      let attempts = 0;
      let delayMs = firstDelayMs;
      for (;;) {
        attempts += 1;
        try {
          await deps.sender.send(message);
          return;
        } catch (err) {
          if (!transient(err)) return refused(message, err);
          if (Date.now() - started + delayMs >= budgetMs) {
            return handOverAfter(message, { attempts, error: err, lifeMs: message.content.ttlSeconds * 1000 - (Date.now() - started) });
          }
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs *= 2;
      }
    },
  };

  async function handOverAfter(message: OutgoingMessage, f: { attempts: number; error: unknown; lifeMs: number }) {
    const lastError = errorText(f.error);
    const payloadEncrypted = deps.cipher.encrypt(JSON.stringify(message));
    const recipientHash = deps.cipher.lookupHash(message.to);
    await handOver(deps.db, { message, payloadEncrypted, recipientHash, expiresInMs: f.lifeMs, attempts: f.attempts, lastError });
    deps.logger.warn(
      { channel: message.channel, purpose: message.purpose, attempts: f.attempts, error: lastError },
      'message not taken by the provider: handed to the message relay',
    );
  }

  async function refused(message: OutgoingMessage, err: unknown) {
    const error = errorText(err);
    await recordRefused(deps.db, message, error);
    deps.logger.warn(
      { channel: message.channel, purpose: message.purpose, reason: 'refused', error, undelivered: deps.undelivered.add() },
      'message not delivered',
    );
  }
}
