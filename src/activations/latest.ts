import { findCompany } from '../companies';
import type { MagicLinkLookups } from '../auth/magic-link';
import type { Sql } from '../db/sql';
import { findLatestActivation, findSeatPackageId } from './repository';

/**
 * What magic-link redemption reads outside the link row: the company's status (only an approved
 * company's links redeem), the person's most recent activation (it decides `nextStep`, and an
 * `activated` one refuses the link) and the package of the seat the link holds (repository.ts says
 * which package that is).
 */
export function createMagicLinkLookups(db: Sql): MagicLinkLookups {
  return {
    async companyStatus(companyId) {
      return (await findCompany(db, companyId))?.status ?? null;
    },
    async latestActivation(userId) {
      return (await findLatestActivation(db, userId)) ?? null;
    },
    seatPackageId: (linkId) => findSeatPackageId(db, linkId),
  };
}
