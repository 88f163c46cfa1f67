import type {
  ConfirmContractResult,
  CounterRequest,
  NoteRequest,
  QuoteActionRequest,
  QuoteActionResult,
  QuoteWorkflowInput,
} from '../../workflows/contracts/quote-contract';

/**
 * What the API asks of a quote chain's negotiation workflow (`quote:<chainRootId>`). The routes depend
 * on this port; src/quotes/runs-temporal.ts implements it on a Temporal client, tests may pass a fake.
 * Every action resolves once its rows (and audit row) are committed; refusals arrive as AppErrors
 * with the spec's codes, a run that is not answering as SERVICE_UNAVAILABLE.
 */
export interface QuoteRuns {
  /**
   * Starts the chain's run (CompanyId and QuoteRef search attributes) from its pending start
   * (src/workflow-starts): resolves once Temporal took it or the run exists, throws when it cannot
   * (the start stays pending for the start relay).
   */
  start(input: QuoteWorkflowInput): Promise<void>;
  submit(chainRootId: string, request: QuoteActionRequest): Promise<QuoteActionResult>;
  startReview(chainRootId: string, request: QuoteActionRequest): Promise<QuoteActionResult>;
  counter(chainRootId: string, request: CounterRequest): Promise<QuoteActionResult>;
  accept(chainRootId: string, request: QuoteActionRequest): Promise<QuoteActionResult>;
  decline(chainRootId: string, request: NoteRequest): Promise<QuoteActionResult>;
  reject(chainRootId: string, request: NoteRequest): Promise<QuoteActionResult>;
  confirmContract(chainRootId: string, request: QuoteActionRequest): Promise<ConfirmContractResult>;
}
