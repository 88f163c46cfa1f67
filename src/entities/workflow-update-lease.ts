import { defineEntity, p } from '@mikro-orm/core';

/**
 * A lease on an action's derived update id (src/workflow-updates/repository.ts,
 * docs/decisions/workflow-updates.md): the one request sending that action right now, and the update
 * id a retry of it joins once the lease has expired (its request answered SERVICE_UNAVAILABLE, or its
 * process died). Deleted when the update answers; rows left behind go a day after they expired.
 */
export const WorkflowUpdateLease = defineEntity({
  name: 'WorkflowUpdateLease',
  tableName: 'workflow_update_leases',
  properties: {
    /** `<action>:<state it applies to>:<digest of the request>` (src/temporal/update.ts, actionDerivedId). */
    derivedId: p.string().length(255).primary(),
    /** The update sent under this lease: the derived id and a uuid of its own. */
    updateId: p.string().length(255),
    /** Until then the request that took the lease is still waiting for the update; after it, a retry takes it over. */
    expiresAt: p.datetime().index(),
  },
});
