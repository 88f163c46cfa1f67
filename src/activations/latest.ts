import { findCompany } from '../companies/repository';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { LatestActivation, MagicLinkLookups } from '../auth/magic-link';
import { sqlOf } from '../db/transition';

/**
 * What magic-link redemption reads outside the link row: the company's status (only an approved
 * company's links redeem), the person's most recent activation (it decides `nextStep`, and an
 * `activated` one refuses the link) and the package of the seat the link holds.
 */
export function createMagicLinkLookups(orm: MikroORM): MagicLinkLookups {
  return {
    async companyStatus(companyId) {
      return (await findCompany(sqlOf(orm.em.fork()), companyId))?.status ?? null;
    },
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
    /**
     * The seat's package: the one the mint wrote on the link (a prepaid link carries its contract
     * line's package, a flexible one the entry's), else the link's contract line, else the roster
     * entry's own package or line (links minted before those columns were written).
     */
    async seatPackageId(linkId) {
      const [row] = await orm.em.fork().execute<{ package_id: string | null }[]>(
        `select coalesce(l.package_id, lci.package_id, r.package_id, rci.package_id) as package_id
           from invitation_links l
           left join contract_items lci on lci.id = l.contract_item_id
           left join roster_entries r on r.id = l.roster_entry_id
           left join contract_items rci on rci.id = r.contract_item_id
          where l.id = ?`,
        [linkId],
      );
      return row?.package_id ?? null;
    },
  };
}
