import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Business keys that make runs findable in the Temporal UI (`ActivationId = "…"`).
 * scripts/stack.sh registers every one of these on the dev server; the e2e test
 * registers them on its own server.
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
