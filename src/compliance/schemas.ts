import { PathId, text, Uuid } from '../http/fields';
import { offsetPage, offsetParams } from '../http/pagination';
import { z } from '../openapi/registry';

const Timestamp = z.iso.datetime();
const Money = z
  .object({ amount: z.string().openapi({ description: 'Decimal text in the currency, e.g. "49.00"' }), currency: z.string() })
  .openapi('ExportMoney');

export const DeletionRequestResponse = z
  .object({
    data: z.object({
      deletionRequestedAt: Timestamp,
      retainUntil: Timestamp.openapi({
        description: 'deletionRequestedAt plus RETENTION_DAYS (default 365): the personal data is erased then',
      }),
    }),
  })
  .openapi('DeletionRequestResponse');

export const DeletionRequestListQuery = z.strictObject({ ...offsetParams });
export const DeletionRequest = z
  .object({ userId: z.uuid(), deletionRequestedAt: Timestamp, retainUntil: Timestamp, erasedAt: Timestamp.nullable() })
  .openapi('DeletionRequest');
export const DeletionRequestList = offsetPage('DeletionRequestList', 'requests', DeletionRequest);

/** The export lists no VALIDATION_ERROR: a malformed id is NOT_FOUND, as an unknown one. */
export const UserParams = z.object({ id: PathId });
/** The erasure lists VALIDATION_ERROR: a malformed id is one. */
export const EraseParams = z.object({ id: Uuid });
export const EraseBody = z
  .strictObject({ reason: text(1, 500, 'Reason').openapi({ description: 'Why the law requires it now (kept in the audit trail)' }) })
  .openapi('EraseUserRequest');
export const EraseResponse = z.object({ data: z.object({ erasedAt: Timestamp }) }).openapi('EraseUserResponse');

const Link = z.object({
  id: z.uuid(),
  status: z.string(),
  channel: z.string().nullable(),
  expiresAt: Timestamp,
  usedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});

/** The whole record of one person (GET /admin/compliance/users/:id/export). */
export const UserExportDocument = z
  .object({
    userId: z.uuid(),
    exportedAt: Timestamp,
    profile: z.object({
      id: z.uuid(),
      name: z.string(),
      phone: z.string().nullable(),
      email: z.string().nullable(),
      phoneProven: z.boolean(),
      emailProven: z.boolean(),
      pendingPhone: z.string().nullable(),
      pendingEmail: z.string().nullable(),
      appRole: z.string(),
      identityType: z.string(),
      isActive: z.boolean(),
      blocklistedAt: Timestamp.nullable(),
      verifiedAt: Timestamp.nullable(),
      managedAreas: z.array(z.string()).nullable(),
      managedAreasWrite: z.array(z.string()).nullable(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
      deletionRequestedAt: Timestamp.nullable(),
      retainUntil: Timestamp.nullable(),
      erasedAt: Timestamp.nullable(),
    }),
    consents: z.array(z.object({ type: z.string(), version: z.string(), recordedAt: Timestamp })),
    activations: z.array(
      z.object({
        id: z.uuid(),
        orderId: z.uuid(),
        orderItemId: z.uuid(),
        operatorId: z.uuid(),
        packageId: z.uuid(),
        iccid: z.string(),
        simType: z.string(),
        esimProfile: z.record(z.string(), z.unknown()).nullable(),
        status: z.string(),
        identityStatus: z.string(),
        identityRef: z.string().nullable(),
        identityType: z.string().nullable(),
        idNumber: z.string().nullable().openapi({ description: 'The national id number of the verification, decrypted' }),
        identityVerifiedAt: Timestamp.nullable(),
        activatedAt: Timestamp.nullable(),
        failedReason: z.string().nullable(),
        retainUntil: Timestamp.nullable(),
        deletionRequestedAt: Timestamp.nullable(),
        deletedAt: Timestamp.nullable(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    orders: z.array(
      z.object({
        id: z.uuid(),
        companyId: z.uuid().nullable(),
        status: z.string(),
        total: Money,
        items: z.array(z.object({ id: z.uuid(), packageId: z.uuid(), iccid: z.string(), quantity: z.int(), unitPrice: Money })),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    payments: z.array(
      z.object({
        id: z.uuid(),
        orderId: z.uuid(),
        method: z.string(),
        provider: z.string(),
        status: z.string(),
        amount: Money,
        gatewayTransactionId: z.string().nullable(),
        receiptNumber: z.string().nullable(),
        failureReason: z.string().nullable(),
        paidAt: Timestamp.nullable(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    storeOrders: z.array(
      z.object({
        id: z.uuid(),
        sku: z.string(),
        status: z.string(),
        product: z.record(z.string(), z.unknown()),
        charge: Money,
        display: Money,
        paymentId: z.uuid().nullable(),
        deviceModel: z.string(),
        profile: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The issued eSIM profile, decrypted' }),
        failureReason: z.string().nullable(),
        deliverBy: Timestamp.nullable(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
        issuedAt: Timestamp.nullable(),
      }),
    ),
    deviceAcknowledgements: z.array(z.object({ id: z.uuid(), deviceModel: z.string(), acknowledgedAt: Timestamp })),
    rosterMemberships: z.array(
      z.object({
        rosterEntryId: z.uuid(),
        companyId: z.uuid(),
        companyName: z.string(),
        status: z.string(),
        nationality: z.string().nullable(),
        packageId: z.uuid().nullable(),
        links: z.array(Link),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    companyMemberships: z.array(z.object({ companyId: z.uuid(), companyName: z.string(), role: z.string(), createdAt: Timestamp })),
    sessions: z.array(z.object({ clientType: z.string(), createdAt: Timestamp, expiresAt: Timestamp, revokedAt: Timestamp.nullable() })),
  })
  .openapi('UserExportDocument');
