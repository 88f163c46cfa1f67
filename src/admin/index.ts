/**
 * The admin area's face: what other areas may use of it (issue 35, "one public face per area"). Its
 * repository stays its own; this runs in the caller's transaction.
 */
// Revokes every session of a user, expired ones included (an account deletion, src/compliance/deletion.ts).
export { revokeUserSessions } from './repository';
