// Workflow definitions, one file per process (see DESIGN.md); re-export each one here.
// The worker bundles this module: only deterministic workflow code and type-only imports
// of activities belong in it. Each process's id, signals, updates and payloads live in its
// pure `<process>-contract.ts`, which callers import; they are not re-exported here (the
// worker registers every function this module exports as a workflow).
export { activationWorkflow } from './activation';
export { settlementWorkflow } from './settlement';
export { housekeepingWorkflow } from './housekeeping';
export { companyOnboardingWorkflow } from './company-onboarding';
export { quoteNegotiationWorkflow } from './quote-negotiation';
export { storeCatalogSyncWorkflow, storeCatalogSyncAllWorkflow } from './store-sync';
export { fxFetchWorkflow } from './fx-fetch';
export { storeOrderWorkflow } from './store-order';
export { retentionWorkflow } from './retention';
