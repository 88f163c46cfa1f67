import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

/**
 * Service-wide settings, one JSON object per key; `organization` holds the seller identity printed
 * on documents (src/settings/organization.ts validates it). Who saved it last is kept here, the
 * before/after values in the audit trail.
 */
export const Setting = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  properties: {
    key: p.text().primary(),
    value: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime(),
    updatedBy: () => p.manyToOne(User).mapToPk().nullable().deleteRule('set null').fieldName('updated_by'),
  },
});
export type SettingRow = InstanceType<typeof Setting.class>;
