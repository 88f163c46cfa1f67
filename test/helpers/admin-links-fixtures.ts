// Invitation links written with SQL for the admin link tests (the links helper's routes mint them for real).
import { randomBytes } from 'node:crypto';
import type { LinkChannel, LinkStatus } from '../../src/entities';
import type { TestApp } from './app';

export interface LinkFixture {
  userId: string;
  companyId: string | null;
  status: LinkStatus;
  channel: LinkChannel | null;
  createdAt: Date;
  expiresAt: Date;
  /** Default: createdAt. */
  updatedAt?: Date;
}

/** One invitation_links row (a random token hash, no roster entry); returns its id. */
export async function insertLink(db: TestApp['db'], link: LinkFixture): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into invitation_links (token_hash, user_id, company_id, status, channel, expires_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
    [
      randomBytes(32).toString('hex'),
      link.userId,
      link.companyId,
      link.status,
      link.channel,
      link.expiresAt,
      link.createdAt,
      link.updatedAt ?? link.createdAt,
    ],
  );
  return row.id;
}

/**
 * `count` links of one person in one statement (generate_series), created one second apart going back
 * from `newest`, all `sent` by e-mail and live until `expiresAt`.
 */
export async function insertManyLinks(
  db: TestApp['db'],
  opts: { userId: string; companyId: string; count: number; newest: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `insert into invitation_links (token_hash, user_id, company_id, status, channel, expires_at, created_at, updated_at)
     select encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), $1, $2, 'sent', 'email', $3,
            $4::timestamptz - make_interval(secs => n), $4::timestamptz - make_interval(secs => n)
       from generate_series(0, $5::int - 1) as n`,
    [opts.userId, opts.companyId, opts.expiresAt, opts.newest, opts.count],
  );
}
