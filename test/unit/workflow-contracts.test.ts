// Issue 35: the API starts each workflow by its type name, typed by the signature its contract declares
// (workflows/contracts/), and never imports workflow code. This holds the contracts to the code the worker
// registers: each type name is a function workflows/index.ts exports under that name, and each
// implementation has the contract's signature (checked by the compiler: `npm test` type-checks test/).
import * as workflows from '../../workflows';
import { ACTIVATION_WORKFLOW_TYPE, type ActivationWorkflow } from '../../workflows/contracts/activation-contract';
import { COMPANY_WORKFLOW_TYPE, type CompanyOnboardingWorkflow } from '../../workflows/contracts/company-contract';
import { FX_FETCH_WORKFLOW_TYPE, type FxFetchWorkflow } from '../../workflows/contracts/fx-fetch-contract';
import { HOUSEKEEPING_WORKFLOW_TYPE, type HousekeepingWorkflow } from '../../workflows/contracts/housekeeping-contract';
import { QUOTE_WORKFLOW_TYPE, type QuoteNegotiationWorkflow } from '../../workflows/contracts/quote-contract';
import { RETENTION_WORKFLOW_TYPE, type RetentionWorkflow } from '../../workflows/contracts/retention-contract';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementWorkflow } from '../../workflows/contracts/settlement-contract';
import { STORE_ORDER_WORKFLOW_TYPE, type StoreOrderWorkflow } from '../../workflows/contracts/store-order-contract';
import {
  STORE_SYNC_ALL_WORKFLOW_TYPE,
  STORE_SYNC_WORKFLOW_TYPE,
  type StoreCatalogSyncAllWorkflow,
  type StoreCatalogSyncWorkflow,
} from '../../workflows/contracts/store-sync-contract';

/** Each contract's type name, and the implementation the compiler checks against its declared signature. */
const CONTRACTS: Array<[typeName: string, implementation: (...args: never[]) => Promise<unknown>]> = [
  [ACTIVATION_WORKFLOW_TYPE, workflows.activationWorkflow satisfies ActivationWorkflow],
  [COMPANY_WORKFLOW_TYPE, workflows.companyOnboardingWorkflow satisfies CompanyOnboardingWorkflow],
  [FX_FETCH_WORKFLOW_TYPE, workflows.fxFetchWorkflow satisfies FxFetchWorkflow],
  [HOUSEKEEPING_WORKFLOW_TYPE, workflows.housekeepingWorkflow satisfies HousekeepingWorkflow],
  [QUOTE_WORKFLOW_TYPE, workflows.quoteNegotiationWorkflow satisfies QuoteNegotiationWorkflow],
  [RETENTION_WORKFLOW_TYPE, workflows.retentionWorkflow satisfies RetentionWorkflow],
  [SETTLEMENT_WORKFLOW_TYPE, workflows.settlementWorkflow satisfies SettlementWorkflow],
  [STORE_ORDER_WORKFLOW_TYPE, workflows.storeOrderWorkflow satisfies StoreOrderWorkflow],
  [STORE_SYNC_WORKFLOW_TYPE, workflows.storeCatalogSyncWorkflow satisfies StoreCatalogSyncWorkflow],
  [STORE_SYNC_ALL_WORKFLOW_TYPE, workflows.storeCatalogSyncAllWorkflow satisfies StoreCatalogSyncAllWorkflow],
];

it('names, for every workflow the worker registers, the function workflows/index.ts exports under that name', () => {
  const exported = Object.entries(workflows).filter(([, value]) => typeof value === 'function');
  expect(CONTRACTS.map(([typeName, fn]) => [typeName, fn.name]).sort()).toEqual(
    exported.map(([name, fn]) => [name, (fn as () => void).name]).sort(),
  );
  for (const [typeName, fn] of CONTRACTS) expect((workflows as Record<string, unknown>)[typeName]).toBe(fn);
});
