/**
 * The workflow-updates area's face (issue 35, "one public face per area"): the leases that let a
 * retried action join the update its first try sent (src/temporal/update.ts, docs/decisions/workflow-updates.md).
 */
export { takeUpdateLease, releaseUpdateLease, expireUpdateLease } from './repository';
