import type { OperatorService } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/**
 * Business keys that make runs findable in the Temporal UI (`ActivationId = "…"`). Every one the code
 * sets is here (test/unit/compose.test.ts checks); `temporal-init` (src/cli/temporal-init.ts) registers
 * them all: compose's one-shot service, and npm start on the dev server. The e2e tests register them on
 * their own servers.
 */
export const SEARCH_ATTRIBUTES = {
  ActivationId: defineSearchAttributeKey('ActivationId', SearchAttributeType.KEYWORD),
  UserId: defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD),
  OrderId: defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD),
  SimType: defineSearchAttributeKey('SimType', SearchAttributeType.KEYWORD),
  ActivationStatus: defineSearchAttributeKey('ActivationStatus', SearchAttributeType.KEYWORD),
  /** On settlement runs (`payment:<id>`) from their start, and on an activation run once its order is paid. */
  PaymentId: defineSearchAttributeKey('PaymentId', SearchAttributeType.KEYWORD),
  /** On a company's onboarding run (`company:<id>`) from its start, kept across continue-as-new. */
  CompanyId: defineSearchAttributeKey('CompanyId', SearchAttributeType.KEYWORD),
  /** On a quote chain's negotiation run (`quote:<chainRootId>`), with CompanyId: the chain's display ref (`Q-…`). */
  QuoteRef: defineSearchAttributeKey('QuoteRef', SearchAttributeType.KEYWORD),
  /** On a provider's catalog sync run (`store-sync:<providerId>`): the provider's slug. */
  StoreProvider: defineSearchAttributeKey('StoreProvider', SearchAttributeType.KEYWORD),
};

const INDEXED_TYPES: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers on `namespace` every search attribute above that it lacks (the one-shot `temporal-init`:
 * compose's service of that name, and npm start), and returns their names. Idempotent: what exists with our
 * type is left alone; one that exists with another type stops it, naming the attribute.
 */
export async function registerSearchAttributes(
  operator: Pick<OperatorService, 'listSearchAttributes' | 'addSearchAttributes'>,
  namespace: string,
): Promise<string[]> {
  const { customAttributes } = await operator.listSearchAttributes({ namespace });
  const existing = customAttributes ?? {};
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of Object.values(SEARCH_ATTRIBUTES)) {
    const type = INDEXED_TYPES[key.type];
    if (!(key.name in existing)) missing[key.name] = type;
    else if (existing[key.name] !== type) {
      throw new Error(`search attribute ${key.name} exists on namespace ${namespace} with another type (ours: ${key.type})`);
    }
  }
  if (Object.keys(missing).length > 0) await operator.addSearchAttributes({ namespace, searchAttributes: missing });
  return Object.keys(missing);
}
