import type { StartActivation } from '../../workflows/contracts/activation-contract';

// What a run starts from is the workflow's contract (the pending start stores it: src/workflow-starts).
export type { ActivationStartArgs, StartActivation } from '../../workflows/contracts/activation-contract';

/**
 * What the API asks of an activation's workflow (`activation:<id>`) directly: its start. What it tells
 * the run (a verification started, the order paid) goes through pending signals (src/workflow-signals).
 * src/activations/runs-temporal.ts implements it on a Temporal client, tests may pass a fake.
 */
export interface ActivationRuns {
  start(activation: StartActivation): Promise<void>;
}
