import type { Logger } from 'pino';
import Stripe from 'stripe';
import { z } from 'zod';
import { retryDeadlocks } from '../db/deadlock';
import type { Db } from '../db/sql';
import { AppError, validationError } from '../http/errors';
import { issuesOf } from '../http/validate';
import { AMOUNT_MISMATCH, recordMismatch, verifySucceededIntent } from '../payments/verify';
import type { ProcessorEvent } from '../payments/runs';
import { isUuid } from '../http/fields';
import { groupCommit } from './group-commit';
import { DELIVERABLE } from './inbox';
import { appendToInbox, findAndKeep as findAndKeepBatch, type FoundPayment, type KeepRequest } from './repository';

export interface CardProcessorWebhookDeps {
  db: Db;
  logger: Logger;
  /** The endpoint's signing secret. */
  secret: string;
  /** How old (or how far in the future) a signed timestamp may be. */
  toleranceSeconds: number;
  clock?: () => Date;
}

/** The acknowledgement: `ignored` for event types we do not handle and events naming no payment of ours. */
export interface CardProcessorAck {
  received: true;
  ignored?: true;
}

type HandledType = 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled';

/** The envelope every processor event has (the public event object). */
const EventEnvelope = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(100),
  data: z.object({ object: z.unknown() }),
});

/** Metadata values are strings; anything else is dropped (and then fails rule 4). */
const Metadata = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((m) => (m ? Object.fromEntries(Object.entries(m).filter((e): e is [string, string] => typeof e[1] === 'string')) : null));

/** The part of a PaymentIntent a failure or cancellation needs. */
const IntentRef = z.object({
  id: z.string().min(1).max(255),
  metadata: Metadata,
  last_payment_error: z.object({ message: z.string().nullish() }).nullish(),
});

/** A succeeded intent: the fields the four settlement rules read (values are checked by the rules, not here). */
const SucceededIntent = IntentRef.extend({
  status: z.string(),
  amount: z.number(),
  amount_received: z.number(),
  currency: z.string(),
});

/** Up to this many events per statement (the parameters are arrays: the statement text stays one prepared statement). */
const MAX_BATCH = 200;
/** Statements in flight at once: while one commits, the next batch is already on its way. */
const MAX_IN_FLIGHT = 2;

/** What a success must match for the gate: the metadata ids, the currency and both amounts as stored; null when it cannot match. */
function gateOf(intent: z.infer<typeof SucceededIntent>): string[] | null {
  const m = intent.metadata;
  if (intent.status !== 'succeeded' || !m?.payment_id || !m.order_id || !m.user_id) return null;
  if (!Number.isSafeInteger(intent.amount) || !Number.isSafeInteger(intent.amount_received)) return null;
  const currency = intent.currency.toUpperCase();
  return [m.payment_id, m.order_id, m.user_id, currency, String(intent.amount), String(intent.amount_received)];
}

/** `t=<unix seconds>` of a `Processor-Signature` header (the last one, as the library reads it), or null. */
function signedAt(header: string): number | null {
  let t: number | null = null;
  for (const part of header.split(',')) {
    const [key, value] = part.split('=');
    if (key === 't') t = value && /^\d+$/.test(value) ? Number(value) : null;
  }
  return t;
}

/**
 * Why the four settlement rules are checked here, at the door, and not behind the inbox: the
 * spec ties the answer to the mismatch record (200 once it is written, 500
 * PAYMENT_MISMATCH_RECORD_FAILED when it could not be, so the processor redelivers). Only the
 * route can answer that, so the route writes the record and the payment's failure in one
 * Postgres transaction (webhook_events is the store; its unique (provider, event_id) makes a
 * redelivery idempotent) and answers from its outcome.
 *
 * Matching events need no such answer: they go to the webhook inbox (./inbox.ts) in one
 * statement, de-duplicated by the event id, and are acknowledged at once; the relay (./relay.ts,
 * in the worker) hands them to the payment's settlement workflow, in order, whenever Temporal
 * can take them. The processor never waits on Temporal, and nothing is lost while it is away.
 *
 * POST /webhooks/card-processor. The header is the processor's public scheme
 * (`t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, several v1
 * allowed), verified on the raw body with the processor's own library before
 * anything is parsed.
 */
export function createCardProcessorWebhook(deps: CardProcessorWebhookDeps) {
  const clock = deps.clock ?? (() => new Date());
  const { logger } = deps;

  function verify(rawBody: Buffer, header: string | undefined): z.infer<typeof EventEnvelope> {
    if (!header || !header.trim()) throw new AppError('WEBHOOK_SIGNATURE_MISSING');
    const now = clock().getTime();
    let event: unknown;
    try {
      // Checks the timestamp's age and every v1 signature (constant-time) before parsing.
      event = Stripe.webhooks.constructEvent(rawBody, header, deps.secret, deps.toleranceSeconds, undefined, now);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new AppError('WEBHOOK_SIGNATURE_INVALID');
      if (err instanceof SyntaxError) throw validationError([{ path: '', message: 'Request body is not valid JSON' }]);
      throw err;
    }
    // The library bounds only the age; a timestamp too far in the future is refused as well.
    const t = signedAt(header);
    if (t === null || t * 1000 > now + deps.toleranceSeconds * 1000) throw new AppError('WEBHOOK_SIGNATURE_INVALID');
    const envelope = EventEnvelope.safeParse(event);
    if (!envelope.success) throw validationError(issuesOf(envelope.error));
    return envelope.data;
  }

  // The route's one statement (findAndKeep, ./repository.ts), for the events that arrived while the previous
  // one was in flight (group commit, ./group-commit.ts): one round trip and one commit for all.
  const findAndKeepGrouped = groupCommit(keepRetryingDeadlocks, { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT });

  /**
   * The two statements in flight may hold redeliveries of the same events in opposite orders (each keeps
   * its events in arrival order): their inserts then deadlock on the event ids, and PostgreSQL aborts one.
   * That statement changed nothing: run it again (it finds what the other kept), rather than answer 500.
   */
  function keepRetryingDeadlocks(batch: KeepRequest[]): Promise<(FoundPayment | null)[]> {
    return retryDeadlocks(() => findAndKeepBatch(deps.db, batch), {
      onDeadlock: (attempt) => logger.warn({ attempt, events: batch.length }, 'card webhook statement deadlocked; running it again'),
    });
  }

  /** Finds the payment one event names (in the next batch) and keeps the event when eligible; null: none of ours. */
  function findAndKeep(
    event: ProcessorEvent,
    intent: { id: string; metadata: Record<string, string> | null },
    gate: string[] | null,
  ): Promise<FoundPayment | null> {
    const paymentId = intent.metadata?.payment_id;
    return findAndKeepGrouped({
      paymentId: paymentId && isUuid(paymentId) ? paymentId : null,
      intentId: intent.id,
      event,
      receivedAt: clock(),
      deliverable: DELIVERABLE[event.type],
      gate,
    });
  }

  /** The answer once the rules hold: eligible events are in the inbox (now or from before); others could change nothing. */
  async function acknowledge(found: FoundPayment, event: ProcessorEvent): Promise<CardProcessorAck> {
    if (found.eligible || !DELIVERABLE[event.type].includes(found.status)) return { received: true };
    // The rules hold but the gate refused: it is never weaker than the rules, so this is a bug. Keep the event anyway.
    logger.error({ paymentId: found.id, eventId: event.eventId }, 'inbox gate refused an event the rules accept; kept it');
    await appendToInbox(deps.db, { provider: 'card_processor', paymentId: found.id, event, receivedAt: clock() });
    return { received: true };
  }

  async function succeeded(eventId: string, object: unknown): Promise<CardProcessorAck> {
    const parsed = SucceededIntent.safeParse(object);
    if (!parsed.success) throw validationError(issuesOf(parsed.error).map((i) => ({ ...i, path: `data.object.${i.path}` })));
    const intent = parsed.data;
    const event: ProcessorEvent = { eventId, type: 'payment_intent.succeeded' };
    const payment = await findAndKeep(event, intent, gateOf(intent));
    if (!payment) {
      logger.warn({ eventId, intentId: intent.id }, 'succeeded processor event names no payment of ours');
      return { received: true, ignored: true };
    }
    const verification = verifySucceededIntent(payment, {
      status: intent.status,
      amountMinor: intent.amount,
      amountReceivedMinor: intent.amount_received,
      currency: intent.currency,
      metadata: intent.metadata,
    });
    if (verification.ok) return acknowledge(payment, event);
    if (payment.eligible) logger.error({ paymentId: payment.id, eventId }, 'inbox gate let through an event the rules refuse');
    let outcome: { recorded: boolean; paymentFailed: boolean };
    try {
      outcome = await recordMismatch(deps.db, {
        paymentId: payment.id,
        eventId,
        eventType: 'payment_intent.succeeded',
        intentId: intent.id,
        mismatches: verification.mismatches,
        now: clock(),
      });
    } catch (err) {
      logger.error(
        { err, code: AMOUNT_MISMATCH, paymentId: payment.id, eventId },
        'mismatch could not be recorded; the processor will redeliver',
      );
      throw new AppError('PAYMENT_MISMATCH_RECORD_FAILED');
    }
    // Structured, and without the payload: which rules failed, expected against received.
    logger.warn(
      { code: AMOUNT_MISMATCH, paymentId: payment.id, eventId, intentId: intent.id, mismatches: verification.mismatches, ...outcome },
      'processor event does not match the stored payment',
    );
    return { received: true };
  }

  async function failed(
    eventId: string,
    type: Exclude<HandledType, 'payment_intent.succeeded'>,
    object: unknown,
  ): Promise<CardProcessorAck> {
    const parsed = IntentRef.safeParse(object);
    if (!parsed.success) throw validationError(issuesOf(parsed.error).map((i) => ({ ...i, path: `data.object.${i.path}` })));
    const failureMessage = type === 'payment_intent.payment_failed' ? (parsed.data.last_payment_error?.message ?? undefined) : undefined;
    const event: ProcessorEvent = { eventId, type, ...(failureMessage ? { failureMessage: failureMessage.slice(0, 500) } : {}) };
    // A completed payment is never downgraded, and a failed one is failed already: the statement keeps nothing for those.
    const payment = await findAndKeep(event, parsed.data, null);
    if (!payment) {
      logger.info({ eventId, eventType: type, intentId: parsed.data.id }, 'processor event names no payment of ours');
      return { received: true, ignored: true };
    }
    return acknowledge(payment, event);
  }

  return {
    /** Verifies, then handles one delivery; throws AppError for every non-2xx answer. */
    async receive(rawBody: Buffer, header: string | undefined): Promise<CardProcessorAck> {
      const event = verify(rawBody, header);
      switch (event.type) {
        case 'payment_intent.succeeded':
          return succeeded(event.id, event.data.object);
        case 'payment_intent.payment_failed':
        case 'payment_intent.canceled':
          return failed(event.id, event.type, event.data.object);
        default:
          // Nothing a settlement would do with it: acknowledged, not kept.
          return { received: true, ignored: true };
      }
    },
  };
}

export type CardProcessorWebhook = ReturnType<typeof createCardProcessorWebhook>;
