import type { MikroORM } from '@mikro-orm/postgresql';
import { noLookupsYet, type LatestActivation, type MagicLinkLookups } from '../auth/magic-link';

/**
 * What magic-link redemption reads about a person's activations: the most recent one
 * (it decides `nextStep`, and an `activated` one refuses the link). Companies do not
 * exist yet, so their status still reads approved.
 */
export function createMagicLinkLookups(orm: MikroORM): MagicLinkLookups {
  return {
    companyStatus: (companyId) => noLookupsYet.companyStatus(companyId),
    async latestActivation(userId) {
      const [row] = await orm.em.fork().execute<
        {
          id: string;
          package_id: string | null;
          status: LatestActivation['status'];
          identity_status: LatestActivation['identityStatus'];
          identity_ref: string | null;
        }[]
      >(
        `select id, package_id, status, identity_status, identity_ref from activations
          where user_id = ? and deleted_at is null order by created_at desc, id desc limit 1`,
        [userId],
      );
      return row
        ? { id: row.id, packageId: row.package_id, status: row.status, identityStatus: row.identity_status, identityRef: row.identity_ref }
        : null;
    },
  };
}
