import { writeAudit } from '../audit/writer';
import type { Config } from '../config';
import { isUniqueViolation, type Db, type Sql } from '../db/sql';
import type { StoreOrderStatus } from '../entities';
import type { FxRates } from '../fx/rates';
import { AppError, validationError } from '../http/errors';
import { isUuid } from '../http/fields';
import { DEFAULT_LIMIT, offsetOf, parseCursor, type OffsetPaging } from '../http/pagination';
import type { PersonalDataCipher } from '../lib/crypto';
import { activationCodeQrPng } from '../lib/qr';
import { enqueueStart, type StartLauncher } from '../workflow-starts/launch';
import { pendingStart } from '../workflow-starts/kinds';
import { pendingSignal } from '../workflow-signals/kinds';
import type { WorkflowSignals } from '../workflow-signals/outbox';
import type { StoreActor } from './admin-service';
import { reopenFailed } from './failure';
import { sharedHealthChecks } from './health';
import { amountOf, displayMinor, isDisplayCurrency, minorUnitsOf, MIN_CHARGE_USD_CENTS, rateNumber } from '../lib/money';
import { findOwnStoreOrder, findStoreOrder, listOwnStoreOrders, listStoreOrders, type StoreOrderRow } from './order-reads';
import * as repo from './order-repository';
import type { EsimProfile, StoreProviderRegistry } from './providers/plugin';
import { requeuedRun, type StoreOrderRunsConfig } from './runs';

/** esim-store spec "Store order". */
export interface StoreOrderView {
  id: string;
  status: StoreOrderStatus;
  product: StoreOrderRow['productSnapshot'];
  charge: { amount: number; currency: 'USD' };
  display: { amount: number; currency: string };
  fx: StoreOrderRow['fx'];
  paymentId: string | null;
  esimProfile: (Omit<EsimProfile, 'iccid'> & { iccid: string; qrUrl: string }) | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
  issuedAt: string | null;
}

export type AdminStoreOrderView = Omit<StoreOrderView, 'esimProfile'> & { userId: string; providerSlug: string; iccid: string | null };

export const qrUrlOf = (orderId: string) => `/store/orders/${orderId}/esim-qr`;

/** The statuses of a paid order without an issued profile that staff may requeue (`awaiting_provider` only past its deadline). */
/** POST /store/orders' body (./schemas.ts OrderBody). */
interface OrderRequest {
  productId: string;
  currency?: string;
  deviceAcknowledgementId: string;
  expectedPrice?: { amount: number; currency: string };
}

const REQUEUEABLE = new Set<StoreOrderStatus>(['paid', 'provisioning', 'failed']);

function requeueable(row: Pick<repo.RunStoreOrder, 'status' | 'deliverBy'>, now: Date): boolean {
  const overdue = row.status === 'awaiting_provider' && row.deliverBy !== null && row.deliverBy <= now;
  return REQUEUEABLE.has(row.status) || overdue;
}

/** failed → provisioning, or STORE_ORDER_NOT_REQUEUEABLE (refund resolved, account deleted); the refund record it closed. */
async function reopenOrRefuse(tx: Sql, row: repo.RunStoreOrder, by: string, now: Date): Promise<string | null> {
  const reopened = await reopenFailed(tx, row, { by, now });
  if ('refused' in reopened) throw new AppError('STORE_ORDER_NOT_REQUEUEABLE');
  return reopened.closed;
}

export interface StoreOrderDeps {
  db: Db;
  /** The store's gate, the live health check's window, and what a requeued order's new run is started with. */
  config: Pick<Config, 'FEATURE_ESIM_STORE' | 'STORE_HEALTH_CHECK_CACHE_SECONDS'> & StoreOrderRunsConfig;
  fx: FxRates;
  providers: StoreProviderRegistry;
  starts: StartLauncher;
  signals: WorkflowSignals;
  cipher: PersonalDataCipher;
  clock: () => Date;
}

/**
 * Device acknowledgements, ordering, the buyer's order reads and QR, and the staff's list and requeue
 * (esim-store spec "Authenticated", "Admin"). An order is created with its `orders` row and its run's
 * pending start in one transaction; the run (`store-order:<id>`, workflows/store-order.ts) does the rest.
 */
export function createStoreOrders(deps: StoreOrderDeps) {
  const { db, clock, cipher } = deps;
  // One live check per provider and window, whoever orders (issue 33): the partner sees no more calls than that.
  const liveHealth = sharedHealthChecks({
    windowMs: deps.config.STORE_HEALTH_CHECK_CACHE_SECONDS * 1000,
    now: () => clock().getTime(),
  });
  const gate = () => {
    if (!deps.config.FEATURE_ESIM_STORE) throw new AppError('STORE_DISABLED');
  };

  function profileOf(row: StoreOrderRow): EsimProfile | null {
    if (row.status !== 'issued' || !row.profileEncrypted) return null;
    return JSON.parse(cipher.decrypt(row.profileEncrypted)) as EsimProfile;
  }

  function baseView(row: StoreOrderRow) {
    return {
      id: row.id,
      status: row.status,
      product: row.productSnapshot,
      charge: { amount: amountOf(Number(row.chargeUsdCents)), currency: 'USD' as const },
      display: { amount: amountOf(Number(row.displayMinor)), currency: row.displayCurrency },
      fx: row.fx,
      paymentId: row.paymentId,
      failureReason: row.failureReason,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      issuedAt: row.issuedAt?.toISOString() ?? null,
    };
  }

  function view(row: StoreOrderRow): StoreOrderView {
    const profile = profileOf(row);
    return { ...baseView(row), esimProfile: profile ? { ...profile, qrUrl: qrUrlOf(row.id) } : null };
  }

  function adminView(row: StoreOrderRow): AdminStoreOrderView {
    // No activation code for staff: the ICCID names the profile.
    return { ...baseView(row), userId: row.userId, providerSlug: row.providerSlug, iccid: profileOf(row)?.iccid ?? null };
  }

  async function ownRow(userId: string, id: string): Promise<StoreOrderRow> {
    const row = isUuid(id) ? await findOwnStoreOrder(db, id.toLowerCase(), userId) : undefined;
    if (!row) throw new AppError('STORE_ORDER_NOT_FOUND');
    return row;
  }

  /** A price in a display currency: minor units, and the rate used (null for USD); STORE_CURRENCY_UNSUPPORTED without a fresh rate. */
  async function priceIn(currency: string, cents: number) {
    if (!isDisplayCurrency(currency)) throw new AppError('STORE_CURRENCY_UNSUPPORTED');
    const rate = await deps.fx.rateFor(currency);
    if (rate === undefined) throw new AppError('STORE_CURRENCY_UNSUPPORTED');
    const fx = rate ? { ratePerUsd: rateNumber(rate.ratePerUsd), fetchedAt: rate.fetchedAt.toISOString(), source: rate.source } : null;
    return { currency, minor: rate ? displayMinor(cents, rate.ratePerUsd) : cents, fx };
  }

  /**
   * The first answer to this key: the one order, as it is now; another body under the key is a
   * VALIDATION_ERROR on the header (the client reused a key).
   */
  async function keyedOrder(userId: string, body: OrderRequest, createKey: string | undefined): Promise<StoreOrderView | undefined> {
    if (!createKey) return undefined;
    const found = await repo.findKeyedStoreOrder(db, userId, createKey);
    if (!found) return undefined;
    const same =
      found.productId === body.productId.toLowerCase() &&
      found.deviceAcknowledgementId === body.deviceAcknowledgementId.toLowerCase() &&
      found.displayCurrency === (body.currency ?? 'USD').toUpperCase();
    if (!same) throw validationError([{ path: 'Idempotency-Key', message: 'This key was used for another order' }]);
    return view((await findStoreOrder(db, found.id))!);
  }

  /**
   * The contract's checks in its order (after the gate): the acknowledgement (VALIDATION_ERROR); product;
   * provider (registered, active, healthy as recorded, then a live health check shared per provider for
   * STORE_HEALTH_CHECK_CACHE_SECONDS: fail closed); payment mode; currency; KYC; expectedPrice; minimum charge. Then the order, its `orders` row and its run's
   * pending start in one transaction, and the run's start tried once after the commit.
   */
  async function placeOrder(userId: string, body: OrderRequest, createKey: string | undefined): Promise<StoreOrderView> {
    if (!(await repo.ownsAcknowledgement(db, body.deviceAcknowledgementId.toLowerCase(), userId))) {
      throw validationError([{ path: 'deviceAcknowledgementId', message: 'No device acknowledgement of yours has this id' }]);
    }
    const product = await repo.findOrderableProduct(db, body.productId.toLowerCase());
    if (!product) throw new AppError('STORE_PRODUCT_NOT_FOUND');
    if (!product.isActive) throw new AppError('STORE_PRODUCT_INACTIVE');
    const plugin = deps.providers.get(product.providerSlug);
    if (!plugin || !product.providerActive || !product.providerHealthy) throw new AppError('STORE_PROVIDER_UNAVAILABLE');
    const health = await liveHealth(plugin, product.providerSlug);
    if (!health.ok) throw new AppError('STORE_PROVIDER_UNAVAILABLE');
    if (product.paymentMode !== 'internal') throw new AppError('STORE_PROVIDER_PAYMENT_EXTERNAL');
    const cents = Number(product.priceUsdCents);
    const shown = await priceIn(body.currency ?? 'USD', cents);
    if (product.requiresKyc && !product.supportsAsync) throw new AppError('STORE_KYC_REQUIRED');
    if (body.expectedPrice) {
      const expected = body.expectedPrice;
      const current = expected.currency === shown.currency ? shown : await priceIn(expected.currency, cents);
      if (minorUnitsOf(expected.amount) !== current.minor) {
        throw new AppError('STORE_PRICE_CHANGED', {
          details: { currentPrice: { amount: amountOf(current.minor), currency: current.currency } },
        });
      }
    }
    if (cents < MIN_CHARGE_USD_CENTS) throw new AppError('STORE_CHARGE_BELOW_MINIMUM');

    const now = clock();
    // The answer is read inside the transaction: once it commits the request touches Postgres no more, so
    // losing it right after the commit cannot turn a made order into a 503 (whose retry would make another).
    const { created, start } = await db.transaction(async (tx) => {
      const orderId = await repo.insertStoreOrder(tx, {
        userId,
        productId: product.id,
        providerId: product.providerId,
        deviceAcknowledgementId: body.deviceAcknowledgementId.toLowerCase(),
        sku: product.sku,
        productSnapshot: {
          productId: product.id,
          nameEn: product.nameEn,
          nameAr: product.nameAr,
          countries: product.countries,
          dataAmountMb: product.isUnlimited ? null : product.dataAmountMb,
          isUnlimited: product.isUnlimited,
          validityDays: product.validityDays,
        },
        chargeUsdCents: cents,
        displayCurrency: shown.currency,
        displayMinor: shown.minor,
        fx: shown.fx,
        createKey: createKey ?? null,
        now,
      });
      const pending = pendingStart.storeOrder({ orderId, userId });
      await enqueueStart(tx, pending);
      return { created: (await findStoreOrder(tx, orderId))!, start: pending };
    });
    // The start is tried after the answer (it never throws; the start relay has it otherwise): the request
    // does not wait on Temporal, and a payment made at once starts the run itself (signal-with-start).
    void deps.starts.launch(start);
    return view(created);
  }

  return {
    async acknowledge(userId: string, body: { deviceModel: string }) {
      gate();
      const row = await repo.insertAcknowledgement(db, { userId, deviceModel: body.deviceModel, now: clock() });
      return { id: row.id, deviceModel: row.deviceModel, acknowledgedAt: row.acknowledgedAt.toISOString() };
    },

    /** POST /store/orders (placeOrder below); a repeat of a keyed request answers its one order. */
    async create(userId: string, body: OrderRequest, createKey?: string): Promise<StoreOrderView> {
      gate();
      const earlier = await keyedOrder(userId, body, createKey);
      if (earlier) return earlier;
      try {
        return await placeOrder(userId, body, createKey);
      } catch (err) {
        // A parallel repeat of the same keyed request committed first: this one answers its order.
        const raced = isUniqueViolation(err, repo.STORE_ORDER_CREATE_KEY_UNIQUE) ? await keyedOrder(userId, body, createKey) : undefined;
        if (raced) return raced;
        throw err;
      }
    },

    async list(userId: string, q: { cursor?: string; limit?: number; status?: StoreOrderStatus }) {
      const limit = q.limit ?? DEFAULT_LIMIT;
      const after = q.cursor !== undefined ? parseCursor(q.cursor) : undefined;
      const rows = await listOwnStoreOrders(db, { userId, status: q.status, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const last = page.at(-1);
      return { items: page.map(view), nextCursor: hasMore && last ? `${last.createdAtText}|${last.id}` : null, hasMore };
    },

    async get(userId: string, id: string): Promise<StoreOrderView> {
      return view(await ownRow(userId, id));
    },

    /** PNG of the issued activation code, rendered on every call and never stored; 404 until issued. */
    async esimQr(userId: string, id: string): Promise<Buffer> {
      const profile = profileOf(await ownRow(userId, id));
      if (!profile) throw new AppError('STORE_ORDER_NOT_FOUND');
      return activationCodeQrPng(profile.activationCodeRaw);
    },

    async adminList(q: OffsetPaging & { status?: StoreOrderStatus }) {
      const { rows, total } = await listStoreOrders(db, { status: q.status, limit: q.limit, offset: offsetOf(q) });
      return { orders: rows.map(adminView), total };
    },

    /**
     * Staff requeue (spec: a paid order with no issued profile: `paid`, `provisioning`, `awaiting_provider`
     * past its deadline, or `failed`), decided under the order's lock: the order moves to `provisioning`,
     * audited, with a pending `requeue` signal to its run in the same transaction (signal-with-start: a
     * finished order's run starts again), sent after the commit or by the signal relay. Temporal away
     * refuses nothing. The run makes the same move with a new delivery deadline: whichever is first.
     * A `failed` order is not requeueable once its refund was resolved or its buyer's account deleted;
     * otherwise its open refund record closes with the requeue (./failure.ts).
     */
    async requeue(actor: StoreActor, id: string): Promise<AdminStoreOrderView> {
      const orderId = isUuid(id) ? id.toLowerCase() : undefined;
      const now = clock();
      const requeued = await db.transaction(async (tx) => {
        // Lock order: the store order and its orders row, as the run takes them.
        const row = orderId ? await repo.lockRunStoreOrder(tx, orderId) : undefined;
        if (!row) throw new AppError('STORE_ORDER_NOT_FOUND');
        if (!requeueable(row, now)) throw new AppError('STORE_ORDER_NOT_REQUEUEABLE');
        const closed = row.status === 'failed' ? await reopenOrRefuse(tx, row, actor.userId, now) : null;
        await repo.setStoreOrderStatus(tx, row.id, { status: 'provisioning', now, requeued: row.status === 'failed' });
        await writeAudit(tx, {
          action: 'store.order_requeued',
          actorUserId: actor.userId,
          entityType: 'store_order',
          entityId: row.id,
          details: { before: { status: row.status }, ...(closed ? { refundRecordId: closed } : {}) },
          ip: actor.ip,
          userAgent: actor.userAgent,
          at: now,
        });
        const signal = await deps.signals.enqueue(tx, pendingSignal.storeOrderRequeue(row.id, requeuedRun(deps.config, row.id)));
        // The answer is read in the transaction: nothing after the commit can fail the request (an error
        // means the order was not requeued).
        return { signal, view: adminView((await findStoreOrder(tx, row.id))!) };
      });
      await deps.signals.launch([requeued.signal]);
      return requeued.view;
    },
  };
}

export type StoreOrders = ReturnType<typeof createStoreOrders>;
