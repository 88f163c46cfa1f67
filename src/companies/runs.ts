import type { ReadinessGate, StatusChangeRequest, StatusChangeResult } from '../../workflows/contracts/company-contract';

/**
 * What the API asks of a company's onboarding workflow (`company:<id>`). The routes depend on this
 * port; src/companies/runs-temporal.ts implements it on a Temporal client, tests may pass a fake.
 */
export interface CompanyRuns {
  /**
   * Starts the company's run (CompanyId search attribute) from its pending start (src/workflow-starts)
   * and resolves once Temporal took it; a run that already exists counts as started. Throws when the
   * run cannot be started (the start stays pending for the start relay).
   */
  start(companyId: string): Promise<void>;
  /**
   * The changeStatus update, answered once the status row and its audit row are written.
   * COMPANY_INVALID_TRANSITION (details { from, action }) and SERVICE_UNAVAILABLE (no answer in time,
   * or no run yet) arrive as AppErrors.
   */
  changeStatus(companyId: string, request: StatusChangeRequest): Promise<StatusChangeResult>;
  /**
   * Best effort (logged, never thrown): readiness is recomputed from the database. For tools and tests;
   * the API's services write it as a pending signal with their rows (src/workflow-signals).
   */
  readinessChanged(companyId: string, gate: ReadinessGate): Promise<void>;
}
