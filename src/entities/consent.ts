import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user';

export const CONSENT_TYPES = ['terms_of_service', 'privacy_policy', 'data_processing', 'marketing'] as const;
export const REQUIRED_CONSENT_TYPES = ['terms_of_service', 'privacy_policy', 'data_processing'] as const;
export type RequiredConsentType = (typeof REQUIRED_CONSENT_TYPES)[number];

/** One recorded consent of a user to one version of a legal text. */
export const Consent = defineEntity({
  name: 'Consent',
  tableName: 'consents',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    user: () => p.manyToOne(User).mapToPk().deleteRule('cascade').index(),
    type: p.enum(CONSENT_TYPES),
    version: p.string().length(64),
    recordedAt: p.datetime().onCreate(() => new Date()),
  },
});
