/**
 * The auth area's face: what other areas and the activities may use of it (issue 35, "one public face
 * per area"). Its repository stays its own; these run on the Sql the caller hands down (its
 * transaction, when it has one).
 */
export {
  // A user's row, locked when a use case elsewhere changes who they are (a company admin's invite).
  findUser,
  // Ends a user's live sessions (a company's suspension, activities/companies.ts).
  revokeLiveSessions,
} from './repository';

// An active user's role and portal areas, read fresh: the staff guard's (src/http/guards.ts).
export { staffAccessOf } from './staff-access';
