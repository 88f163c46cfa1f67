import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import type { z } from 'zod';
import { writeAudit } from '../audit/writer';
import { DEFAULT_VAT_RATE_PERCENT, type OrganizationSettingsBody } from './schemas';
import { sqlOf } from '../db/transition';

export const ORGANIZATION_KEY = 'organization';

export interface OrganizationSettings {
  legalNameEn: string;
  legalNameAr: string;
  vatNumber: string | null;
  crNumber: string | null;
  addressEn: string | null;
  addressAr: string | null;
  supportEmail: string | null;
  supportPhone: string | null;
  showVatOnReceipts: boolean;
  vatRatePercent: number;
}

const OPTIONAL = ['vatNumber', 'crNumber', 'addressEn', 'addressAr', 'supportEmail', 'supportPhone'] as const;

/** The stored value as the API answers it: every optional field present (null when unset), defaults applied. */
export function organizationView(value: Record<string, unknown>): OrganizationSettings {
  const textOf = (key: string) => (typeof value[key] === 'string' ? value[key] : null);
  const optional = Object.fromEntries(OPTIONAL.map((k) => [k, textOf(k)])) as Pick<OrganizationSettings, (typeof OPTIONAL)[number]>;
  return {
    legalNameEn: textOf('legalNameEn') ?? '',
    legalNameAr: textOf('legalNameAr') ?? '',
    ...optional,
    showVatOnReceipts: value.showVatOnReceipts === true,
    vatRatePercent: typeof value.vatRatePercent === 'number' ? value.vatRatePercent : DEFAULT_VAT_RATE_PERCENT,
  };
}

/** What is stored: the validated body without the unset optional fields (omitted or null: cleared). */
function storedValue(body: z.output<typeof OrganizationSettingsBody>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== null));
}

const SELECT = `select value from settings where key = '${ORGANIZATION_KEY}'`;

/**
 * The organization settings, or null when never saved. Document rendering reads them on every
 * render: with a pool (one named prepared statement) or inside a transaction (an EntityManager).
 */
export async function readOrganizationSettings(db: Pool | PoolClient | EntityManager): Promise<OrganizationSettings | null> {
  const rows =
    'execute' in db
      ? await db.execute<{ value: Record<string, unknown> }[]>(SELECT)
      : (await db.query<{ value: Record<string, unknown> }>({ name: 'organization-settings', text: SELECT })).rows;
  return rows[0] ? organizationView(rows[0].value) : null;
}

export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Whole-object upsert with its `org.settings_updated` audit row (before and after) in one
 * transaction. The row is created first if missing (`on conflict do nothing`) and then locked,
 * so two first saves never both see "nothing before": the second waits and audits the first's value.
 */
export function createOrganizationSettings(deps: { orm: MikroORM; clock: () => Date }) {
  async function save(actor: Actor, body: z.output<typeof OrganizationSettingsBody>): Promise<OrganizationSettings> {
    const value = storedValue(body);
    return deps.orm.em.fork().transactional(async (em) => {
      const now = deps.clock();
      const created = await em.execute<{ key: string }[]>(
        `insert into settings (key, value, updated_at, updated_by) values (?, '{}'::jsonb, ?, ?) on conflict (key) do nothing returning key`,
        [ORGANIZATION_KEY, now, actor.userId],
      );
      const [current] = await em.execute<{ value: Record<string, unknown> }[]>(`${SELECT} for update`);
      const before = created.length > 0 ? null : organizationView(current.value);
      await em.execute('update settings set value = ?::jsonb, updated_at = ?, updated_by = ? where key = ?', [
        JSON.stringify(value),
        now,
        actor.userId,
        ORGANIZATION_KEY,
      ]);
      const after = organizationView(value);
      await writeAudit(sqlOf(em), {
        action: 'org.settings_updated',
        actorUserId: actor.userId,
        entityType: 'organization_settings',
        entityId: ORGANIZATION_KEY,
        details: { before, after },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return after;
    });
  }
  return { save };
}

export type OrganizationSettingsService = ReturnType<typeof createOrganizationSettings>;
