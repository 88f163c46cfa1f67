import { LINK_CHANNELS, LINK_STATUSES } from '../entities';
import { chars } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';

const filters = {
  status: z
    .enum(LINK_STATUSES)
    .optional()
    .openapi({
      description:
        'Only links in this status as read now: lazy expiry applies, so an `issued`, `sent` or `exported` link past its expiresAt ' +
        'matches `expired` and never its stored status',
    }),
  search: chars(0, 255).optional().openapi({
    description:
      'Case-insensitive substring of the person’s or the company’s name (trimmed; empty: no filter). `%` and `_` match themselves',
  }),
};

export const AdminLinkListQuery = z.strictObject({ ...offsetParams, ...filters });
/** The export takes the list's filters, no paging. */
export const AdminLinkExportQuery = z.strictObject(filters);

export const AdminLink = z
  .object({
    id: z.uuid(),
    personName: z.string(),
    companyName: z.string().nullable().openapi({ description: 'Null only for a link minted outside any company' }),
    channel: z
      .enum(LINK_CHANNELS)
      .nullable()
      .openapi({ description: 'How the link was handed out; null on links minted before it was recorded' }),
    destination: z
      .string()
      .nullable()
      .openapi({
        description:
          'Masked: `email` shows `•••••@domain` (five bullets whatever the local part), `sms` the phone’s first four characters, ' +
          'five bullets and its last two digits (`+966•••••67`), `email_sms` both joined by ` / `, `export` the literal ' +
          '`company_channel`. Null when the channel is null or the person no longer has that contact',
        example: '•••••@example.com',
      }),
    status: z.enum(LINK_STATUSES).openapi({ description: 'Lazy expiry applied: an active link past expiresAt reads `expired`' }),
    expiresAt: z.iso.datetime(),
    lastUpdate: z.iso.datetime().openapi({ description: 'The link row’s last change (a stored status move; lazy expiry writes nothing)' }),
  })
  .openapi('AdminLink');

const Count = z.number().int().min(0);

export const AdminLinkStats = z
  .object({
    sent24h: Count.openapi({ description: 'Links minted (send or export) in the 24 hours before now' }),
    used: Count.openapi({ description: 'Links redeemed (`used`)' }),
    exported: Count.openapi({ description: '`exported` links not past expiry (the list’s total for status=exported)' }),
    pending: Count.openapi({ description: 'Live unredeemed links: `issued`, `sent` or `exported` and not past expiry' }),
    failed: Count.openapi({ description: 'Links whose delivery failed (`failed`)' }),
    expired: Count.openapi({ description: '`expired` links plus active ones past expiry (lazy expiry)' }),
  })
  .openapi('AdminLinkStats', { description: 'Over every company’s links, whatever the filters' });

export const AdminLinkList = offsetPage('AdminLinkList', 'links', AdminLink, { stats: AdminLinkStats });
