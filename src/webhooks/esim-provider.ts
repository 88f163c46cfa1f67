import { createHash, createPublicKey, timingSafeEqual, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { EnqueuedSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import type { Logger } from 'pino';
import type { Db, Sql } from '../db/sql';
import { AppError, validationError } from '../http/errors';
import { chars } from '../http/fields';
import { issuesOf } from '../http/validate';
import { z } from '../openapi/registry';
import {
  ESIM_CALLBACK_STATUSES,
  type EsimCallbackFacts,
  type EsimReceiptOutcome,
  type PartnerCallbackSource,
  type StoreOrderReconciliation,
} from '../store/callbacks';
import { claimEsimReceipt, setReceiptOutcome } from './repository';

// --- The callback body (the spec leaves it open; this is our definition) -----------------------

/** No dots: the signed string joins the fields with dots, so each field must be dot-free to be unambiguous. */
const Token = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'Letters, digits, `_` and `-` only');

export const EsimProviderCallback = z
  .object({
    orderId: Token(128).openapi({ description: 'Our store order id, as given to the provider when the order was placed. Signed.' }),
    merchantId: Token(128).openapi({ description: 'Our merchant id at the provider; must equal the configured one. Signed.' }),
    providerName: Token(64).openapi({ description: 'The provider sending the callback. Signed.', example: 'esim_provider_1' }),
    status: z
      .enum(ESIM_CALLBACK_STATUSES)
      .openapi({ description: 'Outcome the provider reports (a hint: not signed, never trusted; see below).' }),
    reason: z
      .enum(['delayed', 'identity_check'])
      .optional()
      .openapi({ description: 'Why the completion was asynchronous: delayed issuance, or an identity check that finished.' }),
    eventId: chars(1, 255)
      .optional()
      .openapi({ description: "The provider's delivery id, kept on the receipt for support; not used for de-duplication." }),
    signature: z.string().max(2048).optional().openapi({
      description:
        'Base64 RSASSA-PKCS1-v1_5 SHA-256 signature of `<orderId>.<merchantId>.<providerName>` (UTF-8) with the provider key. Required.',
    }),
  })
  .openapi('EsimProviderCallback', {
    description:
      'Any other field (for example `qrCode`, `lpa`, `activationCode`, `iccid`) is accepted and discarded: activation ' +
      'credentials in a callback are never stored or logged. Only orderId, merchantId and providerName are covered by the ' +
      'signature, so the callback is only a trigger: a read-only reconciliation reads the order from the provider.',
  });
export type EsimProviderCallback = z.infer<typeof EsimProviderCallback>;

export const EsimProviderAck = z
  .object({
    received: z.literal(true),
    duplicate: z.literal(true).optional().openapi({ description: 'This order and status were received before: nothing was done again.' }),
  })
  .openapi('EsimProviderAck');
export type EsimProviderAck = z.infer<typeof EsimProviderAck>;

// --- The handler -----------------------------------------------------------------------------

export interface EsimProviderWebhookDeps {
  db: Db;
  logger: Logger;
  /** PEM (SPKI) public key of the provider. */
  publicKey: string;
  merchantId: string;
  reconciliation: StoreOrderReconciliation;
  /** Partners calling back in their own format, told apart by their signature header (none with the mocks). */
  partners?: readonly PartnerCallbackSource[];
  /** Sends what the hand-off wrote after the receipt commits; without it, the worker's signal relay does. */
  signals?: WorkflowSignals;
  clock?: () => Date;
  /** Default ESIM_HANDOFF_DEADLINE_MS. */
  handoffDeadlineMs?: number;
}

/** Equal-length digests, so the comparison takes the same time whatever the input. */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function signedText(c: Pick<EsimProviderCallback, 'orderId' | 'merchantId' | 'providerName'>): string {
  return `${c.orderId}.${c.merchantId}.${c.providerName}`;
}

/**
 * How long a hand-off may take. The receipt's transaction stays open meanwhile and identical
 * callbacks wait on its key, so it is bounded: past it the answer is 503 and the provider redelivers.
 */
export const ESIM_HANDOFF_DEADLINE_MS = 5_000;

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hand-off took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The spec's callback from the raw body (the route keeps the bytes for a partner's signature), answered as
 * the JSON parser and the route's validation would: VALIDATION_ERROR with the fields.
 */
export function parseEsimCallback(rawBody: Buffer): EsimProviderCallback {
  if (rawBody.length === 0) throw validationError([{ path: '', message: 'A JSON body is required (Content-Type: application/json)' }]);
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw validationError([{ path: '', message: 'Request body is not valid JSON' }]);
  }
  const parsed = EsimProviderCallback.safeParse(json);
  if (!parsed.success) throw validationError(issuesOf(parsed.error));
  return parsed.data;
}

/**
 * POST /webhooks/esim-provider: verify, de-duplicate on (order, status), hand off, keep a
 * minimal receipt. The receipt's insert is the de-duplication (unique (provider, event_id),
 * `on conflict do nothing returning`), never a select before it: the receipt is inserted in a
 * transaction that stays open while the order is handed off. An identical callback arriving
 * meanwhile waits on that key: once the first commits it inserts nothing and answers
 * `duplicate: true`; if the first hand-off fails (503), the transaction rolls back, nothing is
 * kept, and the waiting callback (or the redelivery) hands the order off itself. A crash
 * mid-hand-off rolls back too. So each (order, status) is handed off once, and never lost.
 */
export function createEsimProviderWebhook(deps: EsimProviderWebhookDeps) {
  const clock = deps.clock ?? (() => new Date());
  // Parsed once: a bad key stops start-up instead of failing every callback.
  const key: KeyObject = createPublicKey(deps.publicKey);

  function verify(callback: EsimProviderCallback): void {
    if (!callback.signature) throw new AppError('WEBHOOK_SIGNATURE_MISSING');
    const signature = callback.signature.trim();
    const valid =
      BASE64.test(signature) &&
      signature.length % 4 === 0 &&
      verifySignature('sha256', Buffer.from(signedText(callback), 'utf8'), key, Buffer.from(signature, 'base64'));
    // A valid signature for another merchant is not for us: the same answer, nothing told.
    if (!valid || !sameText(callback.merchantId, deps.merchantId)) throw new AppError('WEBHOOK_SIGNATURE_INVALID');
  }

  /** Throws SERVICE_UNAVAILABLE when the hand-off fails or passes its deadline (the receipt rolls back). */
  async function handOff(facts: EsimCallbackFacts, tx: Sql, toSend: EnqueuedSignal[]): Promise<EsimReceiptOutcome> {
    try {
      return await withDeadline(deps.reconciliation.enqueue(facts, tx, toSend), deps.handoffDeadlineMs ?? ESIM_HANDOFF_DEADLINE_MS);
    } catch (err) {
      deps.logger.error(
        { err, orderId: facts.orderId, providerName: facts.providerName },
        'eSIM callback could not be handed to reconciliation',
      );
      throw new AppError('SERVICE_UNAVAILABLE');
    }
  }

  /** Keeps the receipt of a verified callback and hands its order off, once per (order, status). */
  async function keep(facts: EsimCallbackFacts, extra: Record<string, unknown>): Promise<EsimProviderAck> {
    // The minimal receipt: who, which order, which status. Never the credentials the body may carry.
    const detail = { ...facts, ...extra };
    const toSend: EnqueuedSignal[] = [];
    const outcome = await deps.db.transaction(async (tx) => {
      const claimed = await claimEsimReceipt(tx, {
        eventId: `${facts.orderId}:${facts.status}`,
        type: `order.${facts.status}`,
        detail,
        now: clock(),
      });
      if (!claimed) return 'duplicate' as const;
      const handedOff = await handOff(facts, tx, toSend);
      await setReceiptOutcome(tx, claimed, handedOff);
      return handedOff;
    });
    if (toSend.length > 0) await deps.signals?.launch(toSend);
    if (outcome === 'duplicate') return { received: true, duplicate: true };
    deps.logger.info(
      { orderId: facts.orderId, providerName: facts.providerName, status: facts.status, outcome },
      'eSIM provider callback received',
    );
    return { received: true };
  }

  /**
   * A partner's own callback: its signature is checked on the raw bytes before anything is parsed (a bad
   * one answers as the spec's invalid signature), then only the order it names is used: the run reads it.
   */
  async function receivePartner(partner: PartnerCallbackSource, rawBody: Buffer, signature: string): Promise<EsimProviderAck> {
    if (signature.trim() === '') throw new AppError('WEBHOOK_SIGNATURE_MISSING');
    if (!partner.callbacks.verify(rawBody, signature.trim())) throw new AppError('WEBHOOK_SIGNATURE_INVALID');
    const named = partner.callbacks.orderOf(rawBody);
    if (!named) throw validationError([{ path: 'description', message: 'A signed partner callback must name our order' }]);
    return keep({ orderId: named.orderId, providerName: partner.providerName, status: named.status }, {});
  }

  /** The spec's callback, validated: its RSA signature over the signed fields and our merchant id. */
  async function receive(callback: EsimProviderCallback): Promise<EsimProviderAck> {
    verify(callback);
    const facts: EsimCallbackFacts = { orderId: callback.orderId, providerName: callback.providerName, status: callback.status };
    return keep(facts, {
      ...(callback.reason ? { reason: callback.reason } : {}),
      ...(callback.eventId ? { providerEventId: callback.eventId } : {}),
    });
  }

  /**
   * The route's entry: a request carrying a configured partner's signature header is that partner's
   * callback; any other is the spec's (its body parsed and validated here, from the raw bytes).
   */
  async function receiveRaw(rawBody: Buffer, header: (name: string) => string | undefined): Promise<EsimProviderAck> {
    for (const partner of deps.partners ?? []) {
      const signature = header(partner.callbacks.header);
      if (signature !== undefined) return receivePartner(partner, rawBody, signature);
    }
    return receive(parseEsimCallback(rawBody));
  }

  return { receive, receiveRaw };
}
