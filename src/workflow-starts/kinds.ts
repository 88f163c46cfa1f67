// The runs the API starts through pending starts (./repository.ts): what each kind stores, its
// workflow id, and how it is started. A new kind adds an entry to StartArgs, a
// builder to pendingStart and a starter to workflowStarters; the table, the API's first attempt
// (./launch.ts) and the relay (./relay.ts) take it as it is.
// What each kind stores is its workflow's contract; the starters are handed in (the API's ports, or the
// worker's: worker/start-relay.ts), so this module depends on none of the areas that start runs.
import { activationWorkflowId, type ActivationStartArgs } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId, type QuoteWorkflowInput } from '../../workflows/contracts/quote-contract';
import { storeOrderWorkflowId, type StoreOrderStartArgs } from '../../workflows/contracts/store-order-contract';

/** The stored arguments of each kind: ids and options only (the column is plain JSON). */
export interface StartArgs {
  activation: ActivationStartArgs;
  company: { companyId: string };
  quote: QuoteWorkflowInput;
  storeOrder: StoreOrderStartArgs;
}

export type StartKind = keyof StartArgs;

/** One run to start: written with the business rows, started at once or by the relay. */
export type PendingStart = { [K in StartKind]: { kind: K; workflowId: string; args: StartArgs[K] } }[StartKind];

/** A start made by the relay rather than by the request that wrote the rows. */
export interface LateStart {
  /** Milliseconds since the rows committed (database time). */
  ageMs: number;
}

/**
 * How each kind is started. A starter resolves once Temporal took the start or answered that the run
 * exists (starts are idempotent by workflow id), and throws otherwise (the start stays pending).
 */
export type WorkflowStarters = { [K in StartKind]: (args: StartArgs[K], late?: LateStart) => Promise<void> };

export const pendingStart = {
  activation: (args: ActivationStartArgs): PendingStart => ({
    kind: 'activation',
    workflowId: activationWorkflowId(args.activationId),
    args,
  }),
  company: (companyId: string): PendingStart => ({ kind: 'company', workflowId: companyWorkflowId(companyId), args: { companyId } }),
  quote: (input: QuoteWorkflowInput): PendingStart => ({ kind: 'quote', workflowId: quoteWorkflowId(input.chainRootId), args: input }),
  storeOrder: (args: StoreOrderStartArgs): PendingStart => ({ kind: 'storeOrder', workflowId: storeOrderWorkflowId(args.orderId), args }),
};

/** Calls the starter of the start's kind (the union does not narrow a lookup by itself). */
export function startWith(starters: WorkflowStarters, start: PendingStart, late?: LateStart): Promise<void> {
  switch (start.kind) {
    case 'activation':
      return starters.activation(start.args, late);
    case 'company':
      return starters.company(start.args, late);
    case 'quote':
      return starters.quote(start.args, late);
    case 'storeOrder':
      return starters.storeOrder(start.args, late);
  }
}

/** The starters on the API's ports (a Temporal client, or a test's fakes); activations come with their own (src/activations/start.ts). */
export function workflowStarters(ports: {
  activation: WorkflowStarters['activation'];
  /** The `start` of each area's port (CompanyRuns, QuoteRuns, StoreOrderRuns). */
  companies: { start(companyId: string): Promise<void> };
  quotes: { start(input: QuoteWorkflowInput): Promise<void> };
  storeOrders: { start(args: StoreOrderStartArgs, late?: LateStart): Promise<void> };
}): WorkflowStarters {
  return {
    activation: ports.activation,
    company: ({ companyId }) => ports.companies.start(companyId),
    quote: (input) => ports.quotes.start(input),
    storeOrder: (args, late) => ports.storeOrders.start(args, late),
  };
}
