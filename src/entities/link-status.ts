/**
 * Invitation link statuses. Their own module because both invitation_links and roster_entries (its
 * copy of the latest link) use them, and those two entity modules import each other.
 */
export const LINK_STATUSES = ['issued', 'sent', 'exported', 'used', 'expired', 'failed', 'revoked'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];
/** A link a beneficiary can still open (until its expiresAt: lazy expiry reads it `expired` after). */
export const ACTIVE_LINK_STATUSES = ['issued', 'sent', 'exported'] as const satisfies readonly LinkStatus[];
/** The same list as SQL, for `status in (${ACTIVE_LINK_SQL})`. */
export const ACTIVE_LINK_SQL = ACTIVE_LINK_STATUSES.map((s) => `'${s}'`).join(', ');
/**
 * How a link reached its person: delivered by e-mail, SMS or both (send), or handed to the company as
 * a raw link (export, reissue-expired). Admin link lists show it; null on rows minted before it existed.
 */
export const LINK_CHANNELS = ['email', 'sms', 'email_sms', 'export'] as const;
export type LinkChannel = (typeof LINK_CHANNELS)[number];
