import type { z } from 'zod';
import { writeAudit } from '../audit/writer';
import type { Db, Sql } from '../db/sql';
import { createSettingIfMissing, settingValue, writeSetting } from './repository';
import { DEFAULT_VAT_RATE_PERCENT, type OrganizationSettingsBody } from './schemas';

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

/**
 * The organization settings, or null when never saved. Document rendering reads them on every
 * render (one named statement), on the pool or inside a transaction.
 */
export async function readOrganizationSettings(sql: Sql): Promise<OrganizationSettings | null> {
  const value = await settingValue(sql, ORGANIZATION_KEY);
  return value ? organizationView(value) : null;
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
export function createOrganizationSettings(deps: { db: Db; clock: () => Date }) {
  async function save(actor: Actor, body: z.output<typeof OrganizationSettingsBody>): Promise<OrganizationSettings> {
    const value = storedValue(body);
    return deps.db.transaction(async (tx) => {
      const now = deps.clock();
      const created = await createSettingIfMissing(tx, ORGANIZATION_KEY, now, actor.userId);
      const current = await settingValue(tx, ORGANIZATION_KEY, { lock: true });
      const before = created ? null : organizationView(current!);
      await writeSetting(tx, ORGANIZATION_KEY, value, now, actor.userId);
      const after = organizationView(value);
      await writeAudit(tx, {
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
