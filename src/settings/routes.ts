import { auditRequestContext } from '../audit/writer';
import type { Config } from '../config';
import type { Db } from '../db/sql';
import { guard } from '../http/guards';
import { AppError } from '../http/errors';
import { json, type Api } from '../http/route';
import type { FxRates } from '../fx/rates';
import { rateNumber } from '../lib/money';
import { readOrganizationSettings, type OrganizationSettingsService } from './organization';
import * as s from './schemas';

export interface SettingsRouteDeps {
  db: Db;
  organization: OrganizationSettingsService;
  config: Pick<Config, 'FEATURE_ESIM_STORE'>;
  /** The exchange-rate snapshots the FX schedule appends (src/fx/). */
  fx: Pick<FxRates, 'latest'>;
}

/** Admin: settings (super_admin only): the seller identity on documents, and exchange rates (with the store). */
export function settingsRoutes(api: Api, deps: SettingsRouteDeps): void {
  const tag = 'Settings';

  api.define(
    {
      method: 'get',
      path: '/admin/settings/organization',
      tag,
      guard: guard.superAdmin,
      summary: 'Read the organization settings',
      description: 'The seller identity printed on generated documents; `data` is null until first saved.',
      response: json(s.OrganizationSettingsOrNull),
      errors: [],
    },
    async () => ({ data: await readOrganizationSettings(deps.db) }),
  );

  api.define(
    {
      method: 'patch',
      path: '/admin/settings/organization',
      tag,
      guard: guard.superAdmin,
      summary: 'Save the organization settings',
      description:
        'Whole-object upsert: the body is validated against the full schema and replaces the stored value; optional fields ' +
        'omitted (or null) are cleared, `showVatOnReceipts` defaults to false and `vatRatePercent` to 15. vatNumber is required ' +
        'when showVatOnReceipts is true. Answers the stored object with defaults applied. Writes an `org.settings_updated` audit ' +
        'row (before and after, actor, client IP, user agent) in the same transaction.',
      body: s.OrganizationSettingsBody,
      response: json(s.OrganizationSettingsResponse),
      errors: [],
    },
    async ({ body, principal, req }) => ({
      data: await deps.organization.save({ userId: principal.user.id, ...auditRequestContext(req) }, body),
    }),
  );

  api.define(
    {
      method: 'get',
      path: '/admin/settings/fx-rates',
      tag,
      guard: guard.superAdmin,
      summary: 'Read exchange rates',
      description:
        'The latest fetched rate per USD of each of AED, EGP, EUR, GBP and SAR (alphabetical), as the `fx-fetch` schedule ' +
        'appended it (FX_FETCH_EVERY): never set by hand, and listed whatever its age (the store stops offering a currency ' +
        'whose rate is older than FX_MAX_AGE). A currency never fetched is absent. Gated by the store gate ' +
        '`FEATURE_ESIM_STORE`: while it is off, STORE_DISABLED 422.',
      response: json(s.FxRates),
      errors: ['STORE_DISABLED'],
    },
    async () => {
      if (!deps.config.FEATURE_ESIM_STORE) throw new AppError('STORE_DISABLED');
      const rates = await deps.fx.latest();
      return {
        base: 'USD' as const,
        rates: rates.map((r) => ({
          currency: r.currency,
          ratePerUsd: rateNumber(r.ratePerUsd),
          fetchedAt: r.fetchedAt.toISOString(),
          source: r.source,
        })),
      };
    },
  );
}
