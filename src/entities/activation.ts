import { defineEntity, p } from '@mikro-orm/core';
import { Operator, Package } from './catalog';
import { Order, OrderItem } from './order';
import { IDENTITY_TYPES, User } from './user';

export const ACTIVATION_STATUSES = ['pending', 'in_progress', 'activated', 'failed', 'cancelled'] as const;
export type ActivationStatus = (typeof ACTIVATION_STATUSES)[number];
export const IDENTITY_STATUSES = ['waiting', 'completed', 'rejected', 'expired', 'error'] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];
export const SIM_TYPES = ['physical', 'esim'] as const;
export type SimType = (typeof SIM_TYPES)[number];

export interface EsimProfile {
  smdpAddress: string;
  matchingId: string;
  activationCodeRaw: string;
  qrUrl: string;
}

/**
 * One SIM activation. `iccid` holds the 19-digit ICCID (physical) or the LPA
 * activation code (eSIM). Its workflow (`activation:<id>`) moves the status;
 * rows are written only by activities and the create transaction.
 */
export const Activation = defineEntity({
  name: 'Activation',
  tableName: 'activations',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    order: () => p.manyToOne(Order).mapToPk().index(),
    orderItem: () => p.manyToOne(OrderItem).mapToPk(),
    user: () => p.manyToOne(User).mapToPk(),
    operator: () => p.manyToOne(Operator).mapToPk(),
    package: () => p.manyToOne(Package).mapToPk(),
    iccid: p.string().length(255),
    simType: p.enum(SIM_TYPES).default('physical'),
    esimProfile: p.json<EsimProfile>().nullable(),
    status: p.enum(ACTIVATION_STATUSES).default('pending'),
    identityStatus: p.enum(IDENTITY_STATUSES).default('waiting'),
    identityRef: p.string().length(255).nullable(),
    identityVerifiedAt: p.datetime().nullable(),
    /** Identity type declared for the running verification; copied to the user on completion. */
    identityType: p.enum(IDENTITY_TYPES).nullable(),
    /** National id number of the verification, encrypted; the hash finds repeats. */
    idNumberEncrypted: p.text().nullable(),
    idNumberHash: p.string().length(64).nullable(),
    /**
     * Verifications started so far: the next one's number names its provider idempotency key, so a
     * request retried after a lost answer gets the transaction the first one started (src/activations/identity.ts).
     */
    identityAttempts: p.integer().default(0),
    /** When the current verification started at the provider (database time). */
    identityStartedAt: p.datetime().nullable(),
    /** The current verification's code for the national identity app, encrypted: a repeated request answers it again. */
    identityCodeEncrypted: p.text().nullable(),
    /** The create's Idempotency-Key, if the client sent one: a repeat answers this activation (src/activations/create.ts). */
    createKey: p.string().length(128).nullable(),
    assignedOfficerId: p.uuid().nullable(),
    activatedAt: p.datetime().nullable(),
    failedReason: p.text().nullable(),
    retainUntil: p.datetime().nullable(),
    deletionRequestedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    estimatedActivationSeconds: p.integer().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [
    // History: the caller's activations newest first, keyset on (created_at, id).
    {
      name: 'activations_user_history_index',
      expression:
        'create index "activations_user_history_index" on "activations" ("user_id", "created_at" desc, "id" desc) where "deleted_at" is null',
    },
    // Records: everyone's, newest first.
    {
      name: 'activations_records_index',
      expression: 'create index "activations_records_index" on "activations" ("created_at" desc, "id" desc)',
    },
    { properties: ['status'] },
    // SIM limits (src/activations/sim-limit.ts): the live activations of one verified identity, on any account.
    {
      name: 'activations_live_identity_index',
      expression:
        'create index "activations_live_identity_index" on "activations" ("id_number_hash") where "id_number_hash" is not null and "deleted_at" is null and "status" not in (\'failed\', \'cancelled\')',
    },
  ],
  uniques: [
    // One live activation per serial: failed and cancelled ones may be retried.
    { name: 'activations_live_iccid_unique', properties: ['iccid'], where: "status not in ('failed', 'cancelled') and deleted_at is null" },
    { name: 'activations_create_key_unique', properties: ['user', 'createKey'], where: 'create_key is not null' },
  ],
});
