// What the API's services use to tell runs something (the area's one face): enqueue writes a pending
// signal in the service's own transaction; launch, after the commit, is the API's one try at each
// (within a short deadline), then the answer goes to the client whatever happened. A signal that fails,
// or that must wait for an earlier one of its run (or for its run's start), stays pending for the
// worker's relay (./relay.ts).
import type { Logger } from 'pino';
import type { Db, Sql } from '../db/sql';
import { errorText } from '../relay/loop';
import type { EnqueuedSignal, PendingSignal, SignalSender } from './kinds';
import { enqueueSignal, isReady, markDelivered, recordFailedAttempt } from './repository';

export interface WorkflowSignalsDeps {
  db: Db;
  send: SignalSender;
  logger: Pick<Logger, 'warn'>;
}

export interface WorkflowSignals {
  /** Writes the signal in the caller's transaction (the one that decided it). */
  enqueue(tx: Sql, signal: PendingSignal): Promise<EnqueuedSignal>;
  /** After the commit: sends each signal and marks it; never throws (the relay has it otherwise). */
  launch(signals: EnqueuedSignal[]): Promise<void>;
}

export function createWorkflowSignals(deps: WorkflowSignalsDeps): WorkflowSignals {
  async function launchOne(signal: EnqueuedSignal): Promise<void> {
    try {
      // Out of order it would overtake an earlier signal of its run: the relay sends them in turn.
      if (!(await isReady(deps.db, signal.id))) return await recordFailedAttempt(deps.db, signal.id, 'waits for its run');
      const outcome = await deps.send(signal);
      await markDelivered(deps.db, signal.id, outcome);
    } catch (err) {
      deps.logger.warn({ err, workflowId: signal.workflowId, signal: signal.signal }, 'signal pending: the signal relay will deliver it');
      await recordFailedAttempt(deps.db, signal.id, errorText(err)).catch(() => undefined);
    }
  }
  return {
    enqueue: enqueueSignal,
    async launch(signals) {
      for (const signal of signals) await launchOne(signal);
    },
  };
}
