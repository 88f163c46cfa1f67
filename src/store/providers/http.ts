import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { HttpRefused, HttpUnavailable, joinUrl, reasonOf, requestJson, type HttpCall, type HttpPolicy } from '../../providers/http';
import { minorUnitsOf } from '../../lib/money';
import {
  lpaOf,
  StoreProviderRejection,
  StoreProviderUnavailable,
  type EsimProfile,
  type HealthCheckOptions,
  type CallbackOrder,
  type PlacedOrder,
  type ProviderCallbacks,
  type ProviderHealth,
  type ProviderOrder,
  type ProviderProduct,
  type StoreProviderPlugin,
} from './plugin';

export interface HttpStoreProviderOptions {
  slug: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** Extra attempts on a transient failure (timeouts, 408/425/429/5xx, the network). */
  retries: number;
  backoffMs?: number;
  logger?: Pick<Logger, 'warn'>;
  now?: () => number;
}

/** A token is renewed this long before the partner says it expires. */
const REFRESH_MARGIN_MS = 60_000;
const PAGE_SIZE = 100;
/** A catalog of more pages than this is a partner's loop, not a catalog. */
const MAX_PAGES = 1_000;

/** The partner's callback signature header: hex HMAC-SHA512 of the raw body with the client secret. */
export const PARTNER_SIGNATURE_HEADER = 'partner-signature';

interface PartnerSim {
  iccid?: unknown;
  lpa?: unknown;
  matching_id?: unknown;
  qrcode?: unknown;
}
interface PartnerOrder {
  status?: unknown;
  sims?: unknown;
  description?: unknown;
}

/** Longer is not one of our order ids (uuids); the receipt keeps the id in a bounded column. */
const MAX_ORDER_ID = 128;

/** Whether `signature` is the hex HMAC-SHA512 of exactly `rawBody` with `secret`, compared in constant time. */
function signedBySecret(secret: string, rawBody: Buffer, signature: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signature)) return false;
  const expected = createHmac('sha512', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The order a verified callback names, and the partner's outcome as a hint (failed or cancelled: failed). */
function callbackOrderOf(rawBody: Buffer): CallbackOrder | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const body = (parsed ?? {}) as PartnerOrder & { data?: PartnerOrder };
  const order = typeof body.data?.description === 'string' ? body.data : body;
  const orderId = order.description;
  if (typeof orderId !== 'string' || orderId === '' || orderId.length > MAX_ORDER_ID) return null;
  return { orderId, status: order.status === 'failed' || order.status === 'cancelled' ? 'failed' : 'completed' };
}

/**
 * A wholesale eSIM partner over HTTP, modeled on a public partner API (Airalo Partner API v2; the
 * contract is in docs/configuration.md, "The eSIM store"):
 *
 *   POST {base}/v2/token   { client_id, client_secret, grant_type: client_credentials }
 *                          2xx { data: { access_token, expires_in } }: a bearer token, renewed a minute before it expires
 *   GET  {base}/v2/packages?limit=100&page=N
 *                          2xx { data: [ country { operators: [ { is_kyc_verify, countries: [ { country_code } ],
 *                          packages: [ { id, title, amount (MB), day, is_unlimited, price (USD retail) } ] } ] } ],
 *                          meta: { current_page, last_page } }
 *   POST {base}/v2/orders  Idempotency-Key: <our order id>   { package_id, quantity: 1, type: sim, description: <our order id> }
 *                          200 { data: { sims: [ { iccid, lpa, matching_id, qrcode } ] } }: issued at once
 *                          202 { data: { request_id } }: completed later (identity check, or the partner's delay), by callback
 *   GET  {base}/v2/orders?filter[description]=<our order id>
 *                          2xx { data: [ { status, sims } ] }: the partner's view of our order
 *
 * Our order id is the partner's reference (description and Idempotency-Key): placing twice issues one
 * profile. A 401 on a call renews the token once and repeats the call; a refused token (the token call
 * answering 4xx, or a fresh token refused again) is a StoreProviderRejection, as is any other 4xx.
 * Timeouts, 408/425/429/5xx and network failures are retried (`retries`), then StoreProviderUnavailable.
 * Messages name the partner, the status and the attempts only: never the secret, the token or a profile.
 */
export function createHttpStoreProvider(options: HttpStoreProviderOptions): StoreProviderPlugin & { callbacks: ProviderCallbacks } {
  const now = options.now ?? Date.now;
  const provider = `store provider ${options.slug}`;
  const policy: HttpPolicy = {
    timeoutMs: options.timeoutMs,
    retries: options.retries,
    backoffMs: options.backoffMs,
    logger: options.logger,
  };
  let token: { value: string; renewAt: number } | undefined;
  let renewing: Promise<string> | undefined;

  const unavailable = (err: HttpUnavailable) =>
    new StoreProviderUnavailable(err.message, err.kind === 'timeout' ? 'timeout' : err.kind === 'network' ? 'network' : 'status');

  async function fetchToken(): Promise<string> {
    try {
      const answer = await requestJson(
        {
          provider,
          method: 'POST',
          url: joinUrl(options.baseUrl, 'v2/token'),
          body: { client_id: options.clientId, client_secret: options.clientSecret, grant_type: 'client_credentials' },
        },
        policy,
      );
      const data = (answer.body as { data?: { access_token?: unknown; expires_in?: unknown } } | undefined)?.data;
      if (typeof data?.access_token !== 'string' || data.access_token === '') {
        throw new StoreProviderUnavailable(`${provider} answered the token call without a token`, 'answer');
      }
      const lifetimeMs = typeof data.expires_in === 'number' && data.expires_in > 0 ? data.expires_in * 1000 : 3_600_000;
      token = { value: data.access_token, renewAt: now() + Math.max(0, lifetimeMs - REFRESH_MARGIN_MS) };
      return token.value;
    } catch (err) {
      if (err instanceof HttpRefused) throw new StoreProviderRejection(`${provider} refused our credentials (HTTP ${err.status})`);
      if (err instanceof HttpUnavailable) throw unavailable(err);
      throw err;
    }
  }

  /** The current token, renewed when due; concurrent callers share one renewal. */
  function bearer(force = false): Promise<string> {
    if (!force && token && now() < token.renewAt) return Promise.resolve(token.value);
    if (force) token = undefined;
    renewing ??= fetchToken().finally(() => {
      renewing = undefined;
    });
    return renewing;
  }

  async function call(request: Omit<HttpCall, 'provider' | 'token'>): Promise<{ status: number; body: unknown }> {
    for (let attempt = 1; ; attempt++) {
      const value = await bearer(attempt > 1);
      try {
        return await requestJson({ ...request, provider, token: value }, policy);
      } catch (err) {
        if (err instanceof HttpRefused && err.status === 401) {
          if (attempt === 1) continue;
          throw new StoreProviderRejection(`${provider} refused a fresh token (HTTP 401)`);
        }
        if (err instanceof HttpRefused)
          throw new StoreProviderRejection(reasonOf(err.body) ?? `Refused by ${provider} (HTTP ${err.status})`);
        if (err instanceof HttpUnavailable) throw unavailable(err);
        throw err;
      }
    }
  }

  const url = (path: string) => joinUrl(options.baseUrl, path);

  function profileOf(sims: unknown): EsimProfile | null {
    const sim = (Array.isArray(sims) ? sims[0] : undefined) as PartnerSim | undefined;
    if (!sim || typeof sim.iccid !== 'string' || !/^\d{18,22}$/.test(sim.iccid)) return null;
    if (typeof sim.lpa !== 'string' || sim.lpa === '' || typeof sim.matching_id !== 'string' || sim.matching_id === '') return null;
    const built = lpaOf(sim.lpa, sim.matching_id);
    return {
      iccid: sim.iccid,
      smdpAddress: sim.lpa,
      matchingId: sim.matching_id,
      activationCodeRaw: sim.qrcode === built ? sim.qrcode : built,
    };
  }

  function productsOf(page: unknown): ProviderProduct[] {
    const products: ProviderProduct[] = [];
    for (const country of Array.isArray(page) ? page : []) {
      const operators = (country as { operators?: unknown }).operators;
      for (const operator of Array.isArray(operators) ? operators : []) {
        const op = operator as { is_kyc_verify?: unknown; countries?: unknown; packages?: unknown };
        const countries = (Array.isArray(op.countries) ? op.countries : []).map((c) => (c as { country_code?: unknown }).country_code);
        for (const pkg of Array.isArray(op.packages) ? op.packages : []) {
          const p = pkg as { id?: unknown; title?: unknown; amount?: unknown; day?: unknown; is_unlimited?: unknown; price?: unknown };
          const cents = typeof p.price === 'number' ? minorUnitsOf(p.price) : null;
          products.push({
            sku: typeof p.id === 'string' ? p.id : '',
            nameEn: typeof p.title === 'string' ? p.title : '',
            nameAr: typeof p.title === 'string' ? p.title : '',
            countries: countries.filter((c): c is string => typeof c === 'string'),
            dataAmountMb: typeof p.amount === 'number' ? p.amount : null,
            isUnlimited: p.is_unlimited === true,
            validityDays: typeof p.day === 'number' ? p.day : 0,
            requiresKyc: op.is_kyc_verify === true,
            // Not whole cents: the sync skips the package (0 is refused there).
            priceUsdCents: cents ?? 0,
          });
        }
      }
    }
    return products;
  }

  return {
    slug: options.slug,

    async health(options: HealthCheckOptions = {}): Promise<ProviderHealth> {
      try {
        // A fresh token proves the credentials (staff's toggle, the sync); an order's shared check reuses a
        // valid one: a token is meant to last until it expires, and a refused one is renewed by call().
        await bearer(options.freshToken ?? true);
        await call({ method: 'GET', url: url('v2/packages?limit=1&page=1') });
        return { ok: true, detail: `${provider}: token and package list answered` };
      } catch (err) {
        return { ok: false, detail: err instanceof Error ? err.message : 'health check failed' };
      }
    },

    async listProducts(): Promise<ProviderProduct[]> {
      const products = new Map<string, ProviderProduct>();
      for (let page = 1; page <= MAX_PAGES; page++) {
        const answer = await call({ method: 'GET', url: url(`v2/packages?limit=${PAGE_SIZE}&page=${page}`) });
        const body = answer.body as { data?: unknown; meta?: { current_page?: unknown; last_page?: unknown } } | undefined;
        if (!Array.isArray(body?.data)) throw new StoreProviderUnavailable(`${provider} answered the package list without data`, 'answer');
        // A package listed under several countries is one product (the first entry wins).
        for (const product of productsOf(body.data)) if (!products.has(product.sku)) products.set(product.sku, product);
        const last = body.meta?.last_page;
        if (typeof last !== 'number' || page >= last) return [...products.values()];
      }
      throw new StoreProviderUnavailable(`${provider} lists more than ${MAX_PAGES} pages of packages`, 'answer');
    },

    async placeOrder(orderId: string, sku: string): Promise<PlacedOrder> {
      const answer = await call({
        method: 'POST',
        url: url('v2/orders'),
        body: { package_id: sku, quantity: 1, type: 'sim', description: orderId },
        idempotencyKey: orderId,
      });
      const data = (answer.body as { data?: PartnerOrder & { request_id?: unknown } } | undefined)?.data;
      if (answer.status === 202) return { status: 'pending', reason: 'delayed' };
      const profile = profileOf(data?.sims);
      if (!profile) throw new StoreProviderUnavailable(`${provider} answered the order without a usable profile`, 'answer');
      return { status: 'issued', profile };
    },

    async getOrder(orderId: string): Promise<ProviderOrder> {
      const answer = await call({ method: 'GET', url: url(`v2/orders?filter[description]=${encodeURIComponent(orderId)}`) });
      const data = (answer.body as { data?: unknown } | undefined)?.data;
      const order = (Array.isArray(data) ? data : []).find((o) => (o as PartnerOrder).description === orderId) as PartnerOrder | undefined;
      if (!order) return { status: 'not_found' };
      const profile = profileOf(order.sims);
      if (profile) return { status: 'issued', profile };
      if (order.status === 'failed' || order.status === 'cancelled')
        return { status: 'failed', reason: `${provider}: order ${order.status}` };
      return { status: 'pending' };
    },

    /**
     * The partner's callbacks (POST /webhooks/esim-provider, by their `partner-signature` header): ours when
     * signed with our client secret, naming our order in `description` (or `data.description`). Only a
     * trigger: the order's run reads it with getOrder, and whatever profile the body carries is discarded.
     */
    callbacks: {
      header: PARTNER_SIGNATURE_HEADER,
      verify: (rawBody, signature) => signedBySecret(options.clientSecret, rawBody, signature),
      orderOf: callbackOrderOf,
    },
  };
}
