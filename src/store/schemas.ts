import { chars, idempotencyKeyHeader, PathId, text, UUID_SOURCE, Uuid } from '../http/fields';
import { CursorParam, Limit, offsetParams, offsetPage } from '../http/pagination';
import { z } from '../openapi/registry';
import { DISPLAY_CURRENCIES } from '../lib/money';

// --- Shared pieces --------------------------------------------------------------------------------

const Timestamp = z.iso.datetime();
const Amount = z.number().min(0).openapi({ description: 'At most 2 decimals (computed in integer minor units)', example: 45 });

export const Price = z
  .object({ amount: Amount, currency: z.enum(DISPLAY_CURRENCIES) })
  .openapi('StorePrice', { description: 'A price in a display currency' });
export const PriceUsd = z
  .object({ amount: Amount, currency: z.literal('USD') })
  .openapi('StorePriceUsd', { description: 'What is charged, in USD' });
export const FxUsed = z
  .object({
    ratePerUsd: z.number().positive(),
    fetchedAt: Timestamp,
    source: z.string(),
  })
  .nullable()
  .openapi('StoreFxUsed', { description: 'The rate the display price was computed with; null when the display currency is USD' });

export const Product = z
  .object({
    id: z.uuid(),
    providerSlug: z.string(),
    nameEn: z.string(),
    nameAr: z.string(),
    countries: z.array(z.string().regex(/^[A-Z]{2}$/)).openapi({ description: 'ISO 3166-1 alpha-2 codes, sorted' }),
    dataAmountMb: z.number().int().min(0).nullable().openapi({ description: 'null when isUnlimited' }),
    isUnlimited: z.boolean(),
    validityDays: z.number().int().min(1),
    requiresKyc: z.boolean().openapi({ description: 'Identity-check product: needs a provider with the async flow' }),
    price: Price,
    priceUsd: PriceUsd,
    fx: FxUsed,
  })
  .openapi('StoreProduct');
export type ProductAnswer = z.input<typeof Product>;

// --- GET /store/status ------------------------------------------------------------------------------

export const StoreStatusResponse = z
  .object({
    data: z.object({
      enabled: z.boolean().openapi({ description: 'The store gate (FEATURE_ESIM_STORE)' }),
      currencies: z
        .array(z.enum(DISPLAY_CURRENCIES))
        .openapi({ description: 'USD and every currency with a rate fetched within FX_MAX_AGE' }),
      ratesFetchedAt: Timestamp.nullable().openapi({ description: 'The newest rate’s fetchedAt, or null before the first fetch' }),
    }),
  })
  .openapi('StoreStatusResponse');

// --- GET /store/products ----------------------------------------------------------------------------

/**
 * A display currency. Any text is taken and one outside the list answers STORE_CURRENCY_UNSUPPORTED
 * (as the spec says), not VALIDATION_ERROR; the document lists the six.
 */
export const CurrencyParam = z
  .string()
  .optional()
  .openapi({ type: 'string', enum: [...DISPLAY_CURRENCIES], default: 'USD', description: 'Display currency (default USD)' });

export const COUNTRY_PATTERN = '^[A-Za-z]{2}$';
const CountryParam = z
  .string()
  .regex(new RegExp(COUNTRY_PATTERN), 'country must be an ISO 3166-1 alpha-2 code')
  .transform((c) => c.toUpperCase())
  .optional()
  .openapi({ type: 'string', pattern: COUNTRY_PATTERN, description: 'ISO 3166-1 alpha-2 code (either case): products that cover it' });

/** `<priceUsdMinor>|<id>`: the last item's price in cents and id. */
export const PRODUCT_CURSOR_PATTERN = `^(0|[1-9][0-9]{0,14})\\|(${UUID_SOURCE})$`;
const ProductCursor = z
  .string()
  .regex(new RegExp(PRODUCT_CURSOR_PATTERN), 'Invalid cursor: use the nextCursor of the previous page')
  .optional()
  .openapi({
    type: 'string',
    pattern: PRODUCT_CURSOR_PATTERN,
    description: 'Omit for the first page; otherwise the previous `nextCursor` (`<priceUsdMinor>|<id>`)',
    example: '1200|e5171000-0000-4000-8000-000000000001',
  });

export const ProductListQuery = z.strictObject({ country: CountryParam, currency: CurrencyParam, cursor: ProductCursor, limit: Limit });
export const ProductQuery = z.strictObject({ currency: CurrencyParam });
export const ProductParams = z.object({ id: Uuid });

export const ProductList = z
  .object({
    items: z.array(Product),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last' }),
    hasMore: z.boolean(),
  })
  .openapi('StoreProductList');
export const ProductResponse = z.object({ data: Product }).openapi('StoreProductResponse');

// --- Administration ---------------------------------------------------------------------------------

export const StoreProvider = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    nameEn: z.string(),
    nameAr: z.string(),
    isActive: z.boolean(),
    paymentMode: z.enum(['internal', 'external']).openapi({ description: '`external`: the provider charges, which fails closed here' }),
    supportsAsync: z.boolean().openapi({ description: 'Completes orders later through its callback (identity-check products need it)' }),
    health: z
      .object({
        ok: z.boolean().openapi({ description: 'false also when never checked' }),
        checkedAt: Timestamp.nullable(),
        detail: z.string().nullable(),
      })
      .openapi({ description: 'The last health check (sync, toggle)' }),
  })
  .openapi('StoreProvider');

export const StoreProviderList = z.object({ data: z.array(StoreProvider) }).openapi('StoreProviderList');
export const StoreProviderResponse = z.object({ data: StoreProvider }).openapi('StoreProviderResponse');

export const ProviderParams = z.object({ id: Uuid });
export const ToggleBody = z
  .strictObject({ isActive: z.boolean().openapi({ description: 'true runs the health check first and refuses when it fails' }) })
  .openapi('StoreProviderToggleRequest');

export const AdminProduct = Product.extend({
  sku: z.string(),
  isActive: z.boolean(),
  syncedAt: Timestamp.openapi({ description: 'The last sync (or seed) that found the SKU listed by its provider' }),
}).openapi('StoreAdminProduct', { description: 'A product in USD (price = priceUsd, fx null) with its SKU, active flag and last sync' });
export type AdminProductAnswer = z.input<typeof AdminProduct>;

export const AdminProductList = offsetPage('StoreAdminProductList', 'products', AdminProduct);
export const AdminProductResponse = z.object({ data: AdminProduct }).openapi('StoreAdminProductResponse');

export const AdminProductListQuery = z.strictObject({
  ...offsetParams,
  providerId: Uuid.optional().openapi({ description: 'Only this provider’s products' }),
  isActive: z
    .enum(['true', 'false'], { message: "isActive must be 'true' or 'false'" })
    .transform((v) => v === 'true')
    .optional()
    .openapi({ type: 'boolean' }),
  search: chars(1, 100).optional().openapi({ description: 'A substring of the SKU or either name, any case' }),
});

export const ProductPatchBody = z
  .strictObject({
    isActive: z.boolean().optional().openapi({ description: 'false keeps the product off across syncs until turned on again' }),
    nameEn: text(1, 255, 'nameEn').optional().openapi({ description: 'Kept across syncs once set' }),
    nameAr: text(1, 255, 'nameAr').optional().openapi({ description: 'Kept across syncs once set' }),
  })
  .refine((b) => b.isActive !== undefined || b.nameEn !== undefined || b.nameAr !== undefined, {
    message: 'Give at least one of isActive, nameEn, nameAr',
    path: [],
  })
  .openapi('StoreProductPatchRequest', { minProperties: 1 });

export const SyncBody = z
  .strictObject({
    providerId: Uuid.optional().openapi({ description: 'One provider (inactive ones too); omit for every active provider' }),
  })
  .openapi('StoreCatalogSyncRequest');
export const SyncResponse = z
  .object({ data: z.object({ workflowId: z.string().openapi({ example: 'store-sync:e5170000-0000-4000-8000-000000000001' }) }) })
  .openapi('StoreCatalogSyncResponse');

// --- Device acknowledgements and orders ---------------------------------------------------------------

export const AcknowledgementBody = z
  .strictObject({
    deviceModel: text(1, 100, 'deviceModel'),
    esimCompatible: z.literal(true, { message: 'esimCompatible must be true: the device must support eSIM' }),
    carrierUnlocked: z.literal(true, { message: 'carrierUnlocked must be true: the device must be carrier-unlocked' }),
  })
  .openapi('StoreDeviceAcknowledgementRequest');

export const Acknowledgement = z
  .object({ id: z.uuid(), deviceModel: z.string(), acknowledgedAt: Timestamp })
  .openapi('StoreDeviceAcknowledgement');
export const AcknowledgementResponse = z.object({ data: Acknowledgement }).openapi('StoreDeviceAcknowledgementResponse');

export const STORE_ORDER_STATUS_VALUES = [
  'pending_payment',
  'paid',
  'provisioning',
  'awaiting_provider',
  'issued',
  'failed',
  'expired',
] as const;

export const OrderBody = z
  .strictObject({
    productId: Uuid,
    currency: CurrencyParam.openapi({ description: 'Display currency (default USD); the charge is always USD' }),
    deviceAcknowledgementId: Uuid.openapi({ description: 'One of the caller’s own device acknowledgements' }),
    expectedPrice: z
      .strictObject({ amount: Amount, currency: z.string() })
      .optional()
      .openapi({ description: 'The price the buyer saw, in its currency: a different current price is STORE_PRICE_CHANGED' }),
  })
  .openapi('StoreOrderRequest');

/**
 * Optional, ours: a client that lost the answer repeats the request with the same key and gets the one
 * order. Without it a repeat is a new order.
 */
export const OrderHeaders = idempotencyKeyHeader('answer the one order again');

const OrderProduct = z
  .object({
    productId: z.uuid(),
    nameEn: z.string(),
    nameAr: z.string(),
    countries: z.array(z.string()),
    dataAmountMb: z.number().int().nullable(),
    isUnlimited: z.boolean(),
    validityDays: z.number().int(),
  })
  .openapi('StoreOrderProduct', { description: 'The product as it was when ordered' });

const StoreOrderFields = {
  id: z.uuid().openapi({ description: 'Also the order id the payment routes take, and the provider’s reference' }),
  status: z.enum(STORE_ORDER_STATUS_VALUES),
  product: OrderProduct,
  charge: PriceUsd,
  display: z.object({ amount: Amount, currency: z.string() }),
  fx: FxUsed,
  paymentId: z.uuid().nullable(),
  failureReason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  issuedAt: Timestamp.nullable(),
};

export const StoreOrder = z
  .object({
    ...StoreOrderFields,
    esimProfile: z
      .object({
        iccid: z.string(),
        smdpAddress: z.string(),
        matchingId: z.string(),
        activationCodeRaw: z.string().openapi({ description: '`LPA:1$<smdp>$<matchingId>`' }),
        qrUrl: z.string().openapi({ example: '/store/orders/0b6f1c4e-1d2a-4c8e-9a51-000000000001/esim-qr' }),
      })
      .nullable()
      .openapi({ description: 'Null until `issued`' }),
  })
  .openapi('StoreOrder');
export const StoreOrderResponse = z.object({ data: StoreOrder }).openapi('StoreOrderResponse');

export const StoreOrderList = z
  .object({
    items: z.array(StoreOrder),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last' }),
    hasMore: z.boolean(),
  })
  .openapi('StoreOrderList');

const StatusFilter = z.enum(STORE_ORDER_STATUS_VALUES).optional().openapi({ description: 'Only orders in this status' });
export const OrderListQuery = z.strictObject({ cursor: CursorParam, limit: Limit, status: StatusFilter });
/** GET /store/orders/:id lists VALIDATION_ERROR: a malformed id is one. */
export const OrderParams = z.object({ id: Uuid });
/** The QR and the requeue list no VALIDATION_ERROR: a malformed id is STORE_ORDER_NOT_FOUND, as an unknown one. */
export const OrderRefParams = z.object({ id: PathId });

export const AdminStoreOrder = z
  .object({
    ...StoreOrderFields,
    userId: z.uuid(),
    providerSlug: z.string(),
    iccid: z.string().nullable().openapi({ description: 'The issued profile’s ICCID (never the activation code)' }),
  })
  .openapi('StoreAdminOrder');
export const AdminOrderList = offsetPage('StoreAdminOrderList', 'orders', AdminStoreOrder);
export const AdminOrderListQuery = z.strictObject({ ...offsetParams, status: StatusFilter });
export const AdminOrderResponse = z.object({ data: AdminStoreOrder }).openapi('StoreAdminOrderResponse');
