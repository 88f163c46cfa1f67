// Activities are built from their dependencies so tests can hand in fakes and the worker
// hands in the real ones (ORM, providers). One file per area; this factory assembles them.
import { createActivationActivities, type ActivationActivityDeps } from './activations';
import { createCompanyActivities, type CompanyActivityDeps } from './companies';
import { createFxActivities, type FxActivityDeps } from './fx';
import { createHousekeepingActivities, type HousekeepingActivityDeps } from './housekeeping';
import { createPaymentActivities, type PaymentActivityDeps } from './payments';
import { createQuoteActivities, type QuoteActivityDeps } from './quotes';
import { createRetentionActivities, type RetentionActivityDeps } from './retention';
import { createStoreActivities, type StoreActivityDeps } from './store';
import { createStoreOrderActivities, type StoreOrderActivityDeps } from './store-orders';

export type ActivityDeps = ActivationActivityDeps &
  PaymentActivityDeps &
  HousekeepingActivityDeps &
  CompanyActivityDeps &
  QuoteActivityDeps &
  RetentionActivityDeps &
  StoreActivityDeps &
  StoreOrderActivityDeps &
  FxActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createActivationActivities(deps),
    ...createPaymentActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createCompanyActivities(deps),
    ...createQuoteActivities(deps),
    ...createRetentionActivities(deps),
    ...createStoreActivities(deps),
    ...createStoreOrderActivities(deps),
    ...createFxActivities(deps),
  };
}

/** The activity functions registered with the worker; workflows import this type only. */
export type Activities = ReturnType<typeof createActivities>;
