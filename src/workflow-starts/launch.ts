// The API's own attempt at a run it just committed a pending start for: one try, within the ports'
// short start deadline, then the answer goes to the client whatever happened. A start that fails or
// does not answer stays pending for the worker's relay (./relay.ts); nothing is undone.
import type { Logger } from 'pino';
import type { Db } from '../db/sql';
import { errorText } from '../relay/loop';
import { startWith, type PendingStart, type WorkflowStarters } from './kinds';
import { markStarted, recordFailedAttempt } from './repository';

// With the launcher, the area's face for the API's services (issue 35): enqueueStart writes a pending
// start in the service's own transaction; launch tries it after the commit.
export { enqueueStart } from './repository';

export interface StartLauncherDeps {
  db: Db;
  starters: WorkflowStarters;
  logger: Pick<Logger, 'warn'>;
}

export interface StartLauncher {
  /** After the commit: starts the run and marks its pending start; never throws (the relay has it otherwise). */
  launch(start: PendingStart): Promise<void>;
}

export function createStartLauncher(deps: StartLauncherDeps): StartLauncher {
  return {
    async launch(start) {
      try {
        await startWith(deps.starters, start);
      } catch (err) {
        deps.logger.warn({ err, workflowId: start.workflowId }, 'workflow start pending: the start relay will make it');
        await recordFailedAttempt(deps.db, start.workflowId, errorText(err)).catch(() => undefined);
        return;
      }
      // Unmarked (Postgres away just now), the relay starts it again later and finds the run: harmless.
      await markStarted(deps.db, start.workflowId).catch((err: unknown) => {
        deps.logger.warn({ err, workflowId: start.workflowId }, 'workflow started but its pending start not marked');
      });
    },
  };
}
