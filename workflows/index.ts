// Workflow definitions, one file per process (see DESIGN.md); re-export each one here.
// The worker bundles this module: only deterministic workflow code and type-only imports
// of activities belong in it.
export { activationWorkflow } from './activation';
export { settlementWorkflow } from './settlement';
