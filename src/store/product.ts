/**
 * The store product's shape, declared once (issue 35 item 3): a product's own fields as a provider lists
 * them, the sync stores them (store_products, src/entities/store.ts, checked against this type in
 * test/unit/store-product-type.test.ts) and the reads, ordering, the mock catalog and an order's snapshot
 * use them, each picking from it or adding its own. The answers' shapes are the route schemas'
 * (`Product`, `OrderProduct` in ./schemas.ts), whose fields the views fill from these.
 */
export interface StoreProductFields {
  sku: string;
  nameEn: string;
  nameAr: string;
  /** ISO 3166-1 alpha-2 codes: stored upper case, sorted, each once (a provider may list them any way). */
  countries: string[];
  /** Null when isUnlimited (a provider's figure for an unlimited product is ignored). */
  dataAmountMb: number | null;
  isUnlimited: boolean;
  validityDays: number;
  requiresKyc: boolean;
  /** What is charged, in US cents. */
  priceUsdCents: number;
}

/** The fields as a statement answers them: pg reads the bigint price as text (Number reads it: far inside the safe range). */
export type StoreProductRow = Omit<StoreProductFields, 'priceUsdCents'> & { priceUsdCents: string };

/** The product as an order keeps it (store_orders.product_snapshot): what the buyer was shown, price aside. */
export type ProductSnapshot = { productId: string } & Pick<
  StoreProductFields,
  'nameEn' | 'nameAr' | 'countries' | 'dataAmountMb' | 'isUnlimited' | 'validityDays'
>;
