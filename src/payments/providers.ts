import Stripe from 'stripe';
import type { Config } from '../config';
import type { PaymentMethod, PaymentProviderName } from '../entities';

/** What every provider call gets. Amount and currency come from the order, never from a request body. */
export interface ProviderPaymentInput {
  paymentId: string;
  orderId: string;
  userId: string;
  /** Integer minor units of `currency`: the payment's amount_minor. */
  amountMinor: bigint;
  /** ISO 4217, upper-case as stored. */
  currency: string;
  method: PaymentMethod;
  /** The processor-side idempotency key: one per payment row, so a retried call never creates a second intent. */
  idempotencyKey: string;
}

export interface ProviderResult {
  /** `completed` only from the mock; a real processor answers `processing` and settles by verified callback. */
  status: 'completed' | 'processing' | 'failed';
  /** Null only when the provider failed before creating anything. */
  gatewayTransactionId: string | null;
  clientSecret?: string;
  redirectUrl?: string;
  /** Set when failed: a short machine reason (decline code), never card data. */
  failureReason?: string;
}

/** The processor's view of an intent, for reconciliation. */
export interface ProviderIntent {
  id: string;
  /** The processor's own status word (`succeeded`, `processing`, `requires_payment_method`, …). */
  status: string;
  amountMinor: bigint;
  amountReceivedMinor: bigint;
  /** Upper-cased. */
  currency: string;
  metadata: Record<string, string>;
}

/**
 * A payment provider. Calls answer declines as `{ status: 'failed' }`; they
 * throw only when the provider could not be reached or answered nonsense
 * (the payment service fails the payment in both cases).
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** create-intent: local_debit, card_scheme_1, card_scheme_2, generic_processor. */
  createIntent(input: ProviderPaymentInput): Promise<ProviderResult>;
  /** wallet-token: a token from the device wallet sheet (for the card processor: its PaymentMethod id). */
  payWithWalletToken(input: ProviderPaymentInput & { walletToken: string }): Promise<ProviderResult>;
  /** mobile-wallet: answers `processing` with a URL the customer follows to approve. */
  startMobileWallet(input: ProviderPaymentInput & { mobileNumber: string }): Promise<ProviderResult>;
  /** The intent as the provider sees it now; null when it does not know the id. */
  retrieveIntent(gatewayTransactionId: string): Promise<ProviderIntent | null>;
  /**
   * Cancels an open intent (its order was cancelled) and answers the intent as it is afterwards:
   * `canceled`, or, when it can no longer be cancelled, its status then (`succeeded`: the money was
   * taken before the cancel arrived). Null when the provider does not know the id. Safe to repeat.
   */
  cancelIntent(gatewayTransactionId: string): Promise<ProviderIntent | null>;
}

// --- Local mock --------------------------------------------------------------------------------

/**
 * Deterministic failure triggers of the mock, so every *_FAILED code is reachable:
 * - create-intent fails (`card_declined`) when the order amount in minor units ends in 13 (e.g. 10.13 SAR);
 * - wallet-token fails (`wallet_token_declined`) for a walletToken starting `tok_fail`;
 * - mobile-wallet fails (`mobile_wallet_rejected`) for a mobileNumber ending `0000`.
 */
export const MOCK_TRIGGERS = {
  declinedAmountMinorSuffix: 13n,
  failingWalletTokenPrefix: 'tok_fail',
  failingMobileNumberSuffix: '0000',
} as const;

/**
 * The default provider. Card-like and wallet-token payments complete at once;
 * mobile wallet answers `processing` with a redirect URL under PUBLIC_BASE_URL.
 * Ids derive from the payment id, so a repeated call gives the same answer.
 */
export function createMockPaymentProvider(opts: { publicBaseUrl: string }): PaymentProvider {
  const base = opts.publicBaseUrl.replace(/\/+$/, '');
  const intents = new Map<string, ProviderIntent>();
  const compact = (paymentId: string) => paymentId.replace(/-/g, '');

  function remember(id: string, input: ProviderPaymentInput, status: string): void {
    intents.set(id, {
      id,
      status,
      amountMinor: input.amountMinor,
      amountReceivedMinor: status === 'succeeded' ? input.amountMinor : 0n,
      currency: input.currency.toUpperCase(),
      metadata: { payment_id: input.paymentId, order_id: input.orderId, user_id: input.userId },
    });
  }

  function completedIntent(input: ProviderPaymentInput): ProviderResult {
    const id = `mock_pi_${compact(input.paymentId)}`;
    remember(id, input, 'succeeded');
    return { status: 'completed', gatewayTransactionId: id, clientSecret: `${id}_secret_mock` };
  }

  return {
    name: 'mock',
    createIntent(input) {
      if (input.amountMinor % 100n === MOCK_TRIGGERS.declinedAmountMinorSuffix) {
        return Promise.resolve({ status: 'failed', gatewayTransactionId: null, failureReason: 'card_declined' });
      }
      return Promise.resolve(completedIntent(input));
    },
    payWithWalletToken(input) {
      if (input.walletToken.startsWith(MOCK_TRIGGERS.failingWalletTokenPrefix)) {
        return Promise.resolve({ status: 'failed', gatewayTransactionId: null, failureReason: 'wallet_token_declined' });
      }
      return Promise.resolve(completedIntent(input));
    },
    startMobileWallet(input) {
      if (input.mobileNumber.endsWith(MOCK_TRIGGERS.failingMobileNumberSuffix)) {
        return Promise.resolve({ status: 'failed', gatewayTransactionId: null, failureReason: 'mobile_wallet_rejected' });
      }
      const id = `mock_mw_${compact(input.paymentId)}`;
      remember(id, input, 'processing');
      return Promise.resolve({
        status: 'processing',
        gatewayTransactionId: id,
        redirectUrl: `${base}/mock-wallet/redirect/${input.paymentId}`,
      });
    },
    retrieveIntent(id) {
      return Promise.resolve(intents.get(id) ?? null);
    },
    cancelIntent(id) {
      const intent = intents.get(id);
      if (!intent) return Promise.resolve(null);
      if (intent.status !== 'succeeded') intents.set(id, { ...intent, status: 'canceled' });
      return Promise.resolve(intents.get(id) ?? null);
    },
  };
}

// --- Card processor (public PaymentIntent protocol, official library) ----------------------------

export interface CardProcessorOptions {
  apiKey: string;
  /** e.g. `http://127.0.0.1:12111` for a local stub; unset: the library's default host. */
  apiBaseUrl?: string;
  timeoutMs?: number;
  /** Retries are safe: every create carries an idempotency key. */
  maxNetworkRetries?: number;
}

/** Card-like methods pay by card; the generic method lets the processor offer what it supports. */
function methodParams(
  method: PaymentMethod,
): Pick<Stripe.PaymentIntentCreateParams, 'allowed_payment_method_types' | 'automatic_payment_methods'> {
  return method === 'generic_processor' ? { automatic_payment_methods: { enabled: true } } : { allowed_payment_method_types: ['card'] };
}

function safeAmount(amountMinor: bigint): number {
  const amount = Number(amountMinor);
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`amount ${amountMinor} minor units cannot be charged`);
  return amount;
}

/** Declines and refused requests are answers (failed); network, auth, rate-limit and server errors throw. */
function declineOf(err: unknown): ProviderResult | null {
  if (err instanceof Stripe.errors.StripeCardError || err instanceof Stripe.errors.StripeInvalidRequestError) {
    const reason = err.decline_code ?? err.code ?? err.type;
    return { status: 'failed', gatewayTransactionId: err.payment_intent?.id ?? null, failureReason: reason };
  }
  return null;
}

/** A real processor never completes at create time: success arrives as a verified callback. */
function resultOf(intent: Stripe.PaymentIntent, confirmed: boolean): ProviderResult {
  if (intent.status === 'canceled' || (confirmed && intent.status === 'requires_payment_method')) {
    return {
      status: 'failed',
      gatewayTransactionId: intent.id,
      failureReason: intent.last_payment_error?.decline_code ?? intent.last_payment_error?.code ?? intent.status,
    };
  }
  return { status: 'processing', gatewayTransactionId: intent.id, clientSecret: intent.client_secret ?? undefined };
}

export function createCardProcessorProvider(opts: CardProcessorOptions): PaymentProvider {
  const url = opts.apiBaseUrl ? new URL(opts.apiBaseUrl) : undefined;
  const protocol = url?.protocol === 'http:' ? 'http' : 'https';
  const stripe = new Stripe(opts.apiKey, {
    ...(url ? { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
    timeout: opts.timeoutMs ?? 20_000,
    maxNetworkRetries: opts.maxNetworkRetries ?? 2,
    telemetry: false,
    appInfo: { name: 'activation-sys' },
  });

  async function create(
    input: ProviderPaymentInput,
    extra: Partial<Stripe.PaymentIntentCreateParams>,
    confirmed: boolean,
  ): Promise<ProviderResult> {
    const params: Stripe.PaymentIntentCreateParams = {
      amount: safeAmount(input.amountMinor),
      currency: input.currency.toLowerCase(),
      metadata: { payment_id: input.paymentId, order_id: input.orderId, user_id: input.userId },
      ...methodParams(input.method),
      ...extra,
    };
    try {
      return resultOf(await stripe.paymentIntents.create(params, { idempotencyKey: input.idempotencyKey }), confirmed);
    } catch (err) {
      const decline = declineOf(err);
      if (decline) return decline;
      throw err;
    }
  }

  return {
    name: 'card_processor',
    createIntent: (input) => create(input, {}, false),
    // The wallet sheet yields a PaymentMethod; confirming at once charges it (3-D Secure, if asked, uses the client secret).
    payWithWalletToken: (input) =>
      create(input, { payment_method: input.walletToken, allowed_payment_method_types: ['card'], confirm: true }, true),
    // Mobile wallets are a local rail the card processor does not offer.
    startMobileWallet() {
      return Promise.resolve({
        status: 'failed',
        gatewayTransactionId: null,
        failureReason: 'mobile_wallet_not_supported_by_card_processor',
      });
    },
    retrieveIntent,
    async cancelIntent(id) {
      try {
        return intentOf(await stripe.paymentIntents.cancel(id, { cancellation_reason: 'abandoned' }));
      } catch (err) {
        if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
        if (err.statusCode === 404) return null;
        // Already succeeded, already canceled, or confirming: answer what the processor says it is now.
        if (err.code === 'payment_intent_unexpected_state') return retrieveIntent(id);
        throw err;
      }
    },
  };

  async function retrieveIntent(id: string): Promise<ProviderIntent | null> {
    try {
      return intentOf(await stripe.paymentIntents.retrieve(id));
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return null;
      throw err;
    }
  }
}

function intentOf(intent: Stripe.PaymentIntent): ProviderIntent {
  return {
    id: intent.id,
    status: intent.status,
    amountMinor: BigInt(intent.amount),
    amountReceivedMinor: BigInt(intent.amount_received),
    currency: intent.currency.toUpperCase(),
    metadata: { ...intent.metadata },
  };
}

/** The provider PAYMENT_PROVIDER names (config refuses card_processor without its key). */
export function createPaymentProvider(
  config: Pick<Config, 'PAYMENT_PROVIDER' | 'CARD_PROCESSOR_API_KEY' | 'CARD_PROCESSOR_API_BASE_URL' | 'PUBLIC_BASE_URL'>,
): PaymentProvider {
  if (config.PAYMENT_PROVIDER === 'card_processor') {
    if (!config.CARD_PROCESSOR_API_KEY) throw new Error('CARD_PROCESSOR_API_KEY is required for PAYMENT_PROVIDER=card_processor');
    return createCardProcessorProvider({ apiKey: config.CARD_PROCESSOR_API_KEY, apiBaseUrl: config.CARD_PROCESSOR_API_BASE_URL });
  }
  return createMockPaymentProvider({ publicBaseUrl: config.PUBLIC_BASE_URL });
}
