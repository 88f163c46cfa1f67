import { backOff } from 'exponential-backoff';

/** PostgreSQL's deadlock_detected. */
const DEADLOCK = '40P01';

export interface DeadlockRetry {
  /** Runs of the work in all (the first included). */
  attempts?: number;
  /** Told before each run again, with the run that deadlocked. */
  onDeadlock: (attempt: number) => void;
}

/**
 * Runs work that PostgreSQL may abort as a deadlock's victim again: the aborted transaction changed nothing,
 * and a run again finds what the other committed. It waits first (20 ms, doubling): run at once, it can take
 * a lock back before the survivor, still waiting for it, got it, and deadlock again (CI saw that twice in a
 * row). Only the victim runs again, so no jitter is needed to part two retries. Other errors, and the last
 * deadlock, are thrown.
 */
export function retryDeadlocks<T>(work: () => Promise<T>, { attempts = 5, onDeadlock }: DeadlockRetry): Promise<T> {
  return backOff(work, {
    numOfAttempts: attempts,
    startingDelay: 20,
    retry: (err: unknown, failed: number) => {
      if ((err as { code?: string } | null)?.code !== DEADLOCK || failed >= attempts) return false;
      onDeadlock(failed);
      return true;
    },
  });
}
