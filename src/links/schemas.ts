import { Uuid } from '../http/fields';
import { itemResultSchema, LINK_MINT_CODES, LINK_REVOKE_CODES, LINK_SEND_CODES } from '../http/item-results';
import { z } from '../openapi/registry';

export const MAX_LINK_IDS = 500;

const RosterIds = z
  .array(Uuid)
  .min(1, `rosterIds must hold 1-${MAX_LINK_IDS} ids`)
  .max(MAX_LINK_IDS, `rosterIds must hold 1-${MAX_LINK_IDS} ids`)
  .openapi({ description: `1-${MAX_LINK_IDS} roster entry ids of the company (a repeated id counts once)` });

const Defaults = {
  contractItemId: Uuid.optional().openapi({
    description:
      'Prepaid: the batch default contract line, for each entry that does not already hold a seat (else the entry keeps its own). ' +
      'Not a line of the active contract: CONTRACT_ITEM_NOT_FOUND. Ignored for a flexible company.',
  }),
  packageId: Uuid.optional().openapi({
    description:
      'Flexible: the batch default package, for each entry that does not already hold a seat. Not in the live B2B catalog: ' +
      'PACKAGE_NOT_FOUND. Ignored for a prepaid company.',
  }),
};

export const SendLinksBody = z.strictObject({ rosterIds: RosterIds, ...Defaults }).openapi('SendLinksRequest');
export const ExportLinksBody = z
  .strictObject({
    rosterIds: RosterIds.optional().openapi({
      description: 'Omitted: every eligible entry (no live link, and latest activation not `activated`)',
    }),
    ...Defaults,
  })
  .openapi('ExportLinksRequest');
export const RevokeLinksBody = z.strictObject({ rosterIds: RosterIds }).openapi('RevokeLinksRequest');

const RosterIdField = { rosterId: z.uuid() };
export const LinkSendFailure = itemResultSchema(RosterIdField, LINK_SEND_CODES, 'LinkSendFailure');
export const LinkMintSkip = itemResultSchema(RosterIdField, LINK_MINT_CODES, 'LinkMintSkip');
export const LinkRevokeSkip = itemResultSchema(RosterIdField, LINK_REVOKE_CODES, 'LinkRevokeSkip');

export const SendLinksResponse = z
  .object({
    data: z.object({
      sent: z.number().int().min(0).openapi({ description: 'Links minted and delivered on at least one channel' }),
      failed: z.array(LinkSendFailure).openapi({ description: 'Mint and delivery failures merged, sorted by rosterId' }),
    }),
  })
  .openapi('SendLinksResponse');

export const ExportedLink = z
  .object({
    rosterId: z.uuid(),
    name: z.string(),
    contact: z.string().nullable().openapi({ description: 'The e-mail, or the phone when there is none' }),
    link: z.string().openapi({ description: 'The raw invitation link, shown only here and never stored or logged' }),
    expiresAt: z.iso.datetime(),
  })
  .openapi('ExportedLink');

export const ExportLinksResponse = z
  .object({
    data: z.object({
      entries: z.array(ExportedLink).openapi({ description: 'Sorted by rosterId' }),
      skipped: z.array(LinkMintSkip).openapi({ description: 'Sorted by rosterId' }),
    }),
  })
  .openapi('ExportLinksResponse');

export const RevokeLinksResponse = z
  .object({
    data: z.object({
      revoked: z.array(z.object(RosterIdField)).openapi({ description: 'Sorted by rosterId' }),
      skipped: z.array(LinkRevokeSkip).openapi({ description: 'Sorted by rosterId' }),
    }),
  })
  .openapi('RevokeLinksResponse');
