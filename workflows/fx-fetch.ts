import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { FxActivities } from '../activities/fx';
import type { FxFetchResult } from './contracts/fx-fetch-contract';

// A few quick tries; after that the run ends (the schedule's next run tries again), well inside the interval.
const { fetchFxRates } = proxyActivities<FxActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/**
 * Fetches exchange rates, started by the `fx-fetch` Schedule (FX_FETCH_EVERY, overlap skip): each fetch
 * appends a snapshot per currency. A failed fetch keeps the last rates (nothing is written), is logged,
 * and ends the run normally: it never blocks the next one. Rates older than FX_MAX_AGE then make their
 * currency unsupported on their own.
 */
export async function fxFetchWorkflow(): Promise<FxFetchResult> {
  try {
    const fetched = await fetchFxRates();
    log.info('exchange rates fetched', { ...fetched });
    return { status: 'fetched', ...fetched };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const reason = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'fetch failed';
    log.warn('exchange rates not fetched: the last rates stay', { reason });
    return { status: 'failed', reason };
  }
}
