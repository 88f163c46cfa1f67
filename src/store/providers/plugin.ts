/**
 * What the store needs from a wholesale eSIM provider (spec "Store provider"): `health()`,
 * `listProducts()`, `placeOrder(orderId, sku)` answering an issued profile or `pending`, and
 * `getOrder(orderId)`; `cancelOrder(orderId)` where the partner API can cancel a placed order. A plugin is registered under the slug of its `operators` row (kind
 * esim_store); a row without a plugin is "not registered" (STORE_PROVIDER_UNAVAILABLE).
 *
 * Failures: StoreProviderRejection is a definite "no" (retrying cannot help: the order fails, the
 * sync run fails); StoreProviderUnavailable is transient (the activity retries). Our order id is the
 * provider's unique reference, so placing the same order twice issues one profile.
 */
import type { StoreProductFields } from '../product';

export class StoreProviderRejection extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'StoreProviderRejection';
  }
}

export class StoreProviderUnavailable extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'status' | 'answer' = 'status',
  ) {
    super(message);
    this.name = 'StoreProviderUnavailable';
  }
}

export interface HealthCheckOptions {
  /**
   * Default true: prove the credentials themselves (a partner's fresh token), as staff turning a provider
   * on and the sync want. false (an order's shared check): a valid token will do; a refused one is
   * renewed once, as on any call, so revoked credentials still show.
   */
  freshToken?: boolean;
}

export interface ProviderHealth {
  ok: boolean;
  /** One printable line for staff (never a credential or a provider's raw answer). */
  detail: string;
}

/** A product as the provider lists it (countries any case and order); the sync validates and normalizes it (src/store/sync.ts). */
export type ProviderProduct = StoreProductFields;

/** An issued eSIM profile. The activation code is a credential: encrypted at rest, never logged. */
export interface EsimProfile {
  iccid: string;
  smdpAddress: string;
  matchingId: string;
  /** `LPA:1$<smdp>$<matchingId>`. */
  activationCodeRaw: string;
}

/** Why a placement is pending: the provider completes it later (its callback, then getOrder). */
export type PendingReason = 'delayed' | 'identity_check';

export type PlacedOrder = { status: 'issued'; profile: EsimProfile } | { status: 'pending'; reason: PendingReason };

export type ProviderOrder =
  { status: 'issued'; profile: EsimProfile } | { status: 'pending' } | { status: 'failed'; reason: string } | { status: 'not_found' };

/** What a partner's callback names once its signature is verified; the status is a hint, never trusted. */
export interface CallbackOrder {
  orderId: string;
  status: 'completed' | 'failed';
}

/**
 * A partner's own signed callbacks, which POST /webhooks/esim-provider tells apart by their signature
 * header (src/webhooks/esim-provider.ts). Only a trigger: the order's run then reads it with getOrder.
 */
export interface ProviderCallbacks {
  /** The header carrying the signature, lower case; its presence marks the partner's callback. */
  readonly header: string;
  /** Whether `signature` signs exactly these bytes (checked before the body is parsed). */
  verify(rawBody: Buffer, signature: string): boolean;
  /** The order a verified body names; null when it names none (or is not JSON). */
  orderOf(rawBody: Buffer): CallbackOrder | null;
}

/** What a cancellation found: cancelled (the provider will not complete it), too late (`reason`), or no such order. */
export type CancelledOrder = { status: 'cancelled' } | { status: 'not_cancellable'; reason: string } | { status: 'not_found' };

export interface StoreProviderPlugin {
  readonly slug: string;
  /** Set by a plugin whose partner calls back in its own format (the HTTP partner); the mocks use the spec's. */
  readonly callbacks?: ProviderCallbacks;
  health(options?: HealthCheckOptions): Promise<ProviderHealth>;
  listProducts(): Promise<ProviderProduct[]>;
  /** Idempotent by `orderId` (the provider's unique reference). */
  placeOrder(orderId: string, sku: string): Promise<PlacedOrder>;
  /** The provider's own view of the order: a callback is only a trigger to read it. */
  getOrder(orderId: string): Promise<ProviderOrder>;
  /**
   * Withdraws a placed order (the buyer's account was deleted before it was issued). Optional: a partner
   * API without it leaves the order to support, whom the order's refund record tells (docs/decisions/store.md).
   */
  cancelOrder?(orderId: string): Promise<CancelledOrder>;
}

/** Store provider plugins keyed by slug. */
export class StoreProviderRegistry {
  private readonly plugins = new Map<string, StoreProviderPlugin>();

  constructor(plugins: StoreProviderPlugin[] = []) {
    for (const plugin of plugins) this.plugins.set(plugin.slug, plugin);
  }

  get(slug: string): StoreProviderPlugin | undefined {
    return this.plugins.get(slug);
  }

  slugs(): string[] {
    return [...this.plugins.keys()];
  }
}

/** `LPA:1$<smdp>$<matchingId>`. */
export const lpaOf = (smdpAddress: string, matchingId: string) => `LPA:1$${smdpAddress}$${matchingId}`;
