/**
 * The health area's face (issue 35, "one public face per area"): the database ping the API's and the
 * worker's health endpoints share (worker/health.ts).
 */
export { pingDatabase } from './repository';
