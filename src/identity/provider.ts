import { randomInt, randomUUID } from 'node:crypto';
import type { IdentityStatus, IdentityType } from '../entities';

/** The provider refused to start a verification (IDENTITY_ERROR at the API). */
export class IdentityInitiationError extends Error {
  constructor(message = 'identity verification could not be started') {
    super(message);
    this.name = 'IdentityInitiationError';
  }
}

/** The provider could not be reached or answered nonsense (the adapter already retried: initiation answers it, polls try again later). */
export class IdentityProviderUnavailable extends Error {
  constructor(message = 'identity provider unavailable') {
    super(message);
    this.name = 'IdentityProviderUnavailable';
  }
}

export interface IdentityInitiation {
  transId: string;
  /** The code the person confirms in the national identity app. */
  randomCode: string;
}

/**
 * A national identity app provider: initiate returns a transaction and a code
 * the person confirms in the app; the status is then polled until final.
 */
export interface IdentityProvider {
  /**
   * `idempotencyKey`: the same for every attempt at one initiation (a retry after a lost worker), so the
   * provider hands back the transaction it started instead of a second one; fresh per initiation otherwise.
   */
  initiate(input: {
    idNumber: string;
    identityType: IdentityType;
    reference: string;
    idempotencyKey?: string;
  }): Promise<IdentityInitiation>;
  status(transId: string): Promise<IdentityStatus>;
}

/** Idempotency keys the mock remembers (oldest forgotten first). */
const MOCK_KEYS_KEPT = 10_000;

const OUTCOME_BY_LAST_DIGIT: Record<string, IdentityStatus | 'initiation_error'> = {
  '1': 'rejected',
  '2': 'expired',
  '3': 'error',
  '4': 'initiation_error',
};

/**
 * The mock provider. The outcome is chosen by the id number's last digit —
 * 1 rejected, 2 expired, 3 error, 4 initiation fails, anything else completed —
 * and reached `delayMs` after initiation. Polls are stateless: the outcome and start time
 * travel inside the transaction id, so any worker can poll it.
 */
export function createMockIdentityProvider(opts: { delayMs?: number; clock?: () => number } = {}): IdentityProvider {
  const delayMs = opts.delayMs ?? 3_000;
  const now = opts.clock ?? Date.now;
  // Idempotent by key, as a real provider is (per process: enough for one API and its tests).
  const byKey = new Map<string, IdentityInitiation>();
  return {
    initiate({ idNumber, idempotencyKey }) {
      const outcome = OUTCOME_BY_LAST_DIGIT[idNumber.slice(-1)] ?? 'completed';
      if (outcome === 'initiation_error') return Promise.reject(new IdentityInitiationError());
      const known = idempotencyKey ? byKey.get(idempotencyKey) : undefined;
      if (known) return Promise.resolve(known);
      const started = { transId: `mock.${outcome}.${now()}.${randomUUID()}`, randomCode: String(randomInt(10, 100)) };
      if (idempotencyKey) {
        if (byKey.size >= MOCK_KEYS_KEPT) byKey.delete(byKey.keys().next().value!);
        byKey.set(idempotencyKey, started);
      }
      return Promise.resolve(started);
    },
    status(transId) {
      const [kind, outcome, startedAt] = transId.split('.');
      if (kind !== 'mock' || !outcome || !startedAt) return Promise.resolve('error');
      return Promise.resolve(now() - Number(startedAt) >= delayMs ? (outcome as IdentityStatus) : 'waiting');
    },
  };
}
