import { defineEntity, p } from '@mikro-orm/core';

export const APP_ROLES = ['end_user', 'b2b_admin', 'activation_officer', 'support', 'admin', 'super_admin'] as const;
export type AppRole = (typeof APP_ROLES)[number];
/**
 * failedReason of the pending activations, failureReason of the store orders (unpaid: expired; paid, not
 * issued: failed) an account's deletion ended (src/compliance/deletion.ts); the store's run reads it too.
 */
export const ACCOUNT_DELETED = 'ACCOUNT_DELETED';
export const IDENTITY_TYPES = ['citizen', 'resident', 'visitor'] as const;
export type IdentityType = (typeof IDENTITY_TYPES)[number];

/**
 * A person who can sign in. Phone and e-mail are stored encrypted; the `*Hash`
 * columns are keyed hashes that carry uniqueness and lookups.
 *
 * `phone*` and `email*` are the account's identifiers: unique at every instant,
 * shown, and they sign in. Each has its own proof state (`phoneProven`,
 * `emailProven`): true once a code sent to it was verified, or when staff or a
 * company entered it; false while only the account's own registration or profile
 * named it. An unproven identifier blocks nobody: whoever proves it takes it.
 * A registration naming an identifier another account holds unproven keeps it
 * as a claim in `pending*` (not unique, never shown, never a sign-in) until its
 * own code moves it over.
 */
export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    phoneEncrypted: p.text().nullable(),
    phoneHash: p.string().length(64).nullable().unique(),
    emailEncrypted: p.text().nullable(),
    emailHash: p.string().length(64).nullable().unique(),
    /** False while the phone was only named by the account itself (register): a code sent to it proves it. */
    phoneProven: p.boolean().default(true),
    /** False while the e-mail was only named by the account itself (register, PUT /auth/me): a code sent to it proves it. */
    emailProven: p.boolean().default(true),
    pendingPhoneEncrypted: p.text().nullable(),
    pendingPhoneHash: p.string().length(64).nullable().index(),
    pendingEmailEncrypted: p.text().nullable(),
    pendingEmailHash: p.string().length(64).nullable().index(),
    name: p.string().length(255),
    appRole: p.enum(APP_ROLES).default('end_user'),
    identityType: p.enum(IDENTITY_TYPES).default('citizen'),
    isActive: p.boolean().default(true),
    /** Set by a super_admin (POST /admin/users/:id/blocklist): every request and sign-in answers AUTH_BLOCKLISTED. */
    blocklistedAt: p.datetime().nullable(),
    /** Set when the first OTP was verified (registration completed). */
    verifiedAt: p.datetime().nullable(),
    /**
     * Account deletion (POST /auth/me/deletion-request, src/compliance): when it was asked, until when the
     * personal data is kept, and when it was erased. From the request on, the account's phone and e-mail
     * are kept only here, encrypted, outside the identifier columns and their unique hashes (they are free
     * for a new registration); the erasure empties these too.
     */
    deletionRequestedAt: p.datetime().nullable(),
    retainUntil: p.datetime().nullable(),
    erasedAt: p.datetime().nullable(),
    retainedPhoneEncrypted: p.text().nullable(),
    retainedEmailEncrypted: p.text().nullable(),
    /** Portal areas of an `admin` user; null for every other role. */
    managedAreas: p.array().nullable(),
    managedAreasWrite: p.array().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    // The administration users list (GET /admin/users): staff only, newest first, among every end user.
    {
      name: 'users_staff_created_index',
      expression:
        `create index "users_staff_created_index" on "users" ("created_at" desc, "id" desc) ` +
        `where "app_role" in ('activation_officer', 'support', 'admin', 'super_admin')`,
    },
    // The compliance list (GET /admin/compliance/deletion-requests): deletion requests, newest first.
    {
      name: 'users_deletion_requests_index',
      expression:
        'create index "users_deletion_requests_index" on "users" ("deletion_requested_at" desc, "id" desc) where "deletion_requested_at" is not null',
    },
    // The retention schedule: accounts still holding personal data, by the day it must go.
    {
      name: 'users_retention_due_index',
      expression:
        'create index "users_retention_due_index" on "users" ("retain_until") where "retain_until" is not null and "erased_at" is null',
    },
    // Substring search by name (GET /admin/links): trigrams find the few matching people without a pass over every user.
    {
      name: 'users_name_trigram_index',
      expression: 'create index "users_name_trigram_index" on "users" using gin ("name" gin_trgm_ops)',
    },
  ],
});
export type UserRow = InstanceType<typeof User.class>;
