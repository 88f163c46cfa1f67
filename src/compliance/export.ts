import type { Db } from '../db/sql';
import { writeAudit } from '../audit/writer';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import type { PersonalDataCipher } from '../lib/crypto';
import { fromMinorUnits } from '../lib/money';
import { exportRows, type Row } from './reads';
import type { Requester } from './erasure';

/**
 * GET /admin/compliance/users/:id/export: everything the service holds about one person, decrypted, as
 * one JSON document. Each section is one statement over the person's rows (by user id); nothing is
 * left out but credentials (token and code hashes, client secrets) and other people's data.
 */

const ts = (d: unknown) => (d instanceof Date ? d.toISOString() : null);
const money = (minor: unknown, currency: string) => ({ amount: fromMinorUnits(String(minor), currency), currency });

export function createUserExport(deps: { db: Db; cipher: PersonalDataCipher; clock: () => Date }) {
  const { db, cipher } = deps;
  const clear = (stored: unknown) => (typeof stored === 'string' ? cipher.decrypt(stored) : null);

  /** One snapshot of every section (repeatable read), and its audit row in the same transaction. */
  async function exportUser(userId: string, requester: Requester) {
    const now = deps.clock();
    const rows = await db.transaction(
      async (tx) => {
        const found = isUuid(userId) ? await exportRows(tx, userId) : undefined;
        if (!found) throw new AppError('NOT_FOUND');
        await writeAudit(tx, {
          action: 'compliance.user_exported',
          actorUserId: requester.userId,
          entityType: 'user',
          entityId: userId,
          details: Object.fromEntries(Object.entries(found.sections).map(([k, v]) => [k, v.length])),
          ip: requester.ip,
          userAgent: requester.userAgent,
          at: now,
        });
        return found;
      },
      { isolation: 'repeatable read' },
    );
    const { user } = rows;
    const { consents, activations, orders, payments, storeOrders, devices, roster, memberships, sessions } = rows.sections;
    return {
      userId,
      exportedAt: now.toISOString(),
      profile: {
        id: user.id as string,
        name: user.name as string,
        phone: clear(user.phone),
        email: clear(user.email),
        phoneProven: user.phone_proven as boolean,
        emailProven: user.email_proven as boolean,
        pendingPhone: clear(user.pending_phone),
        pendingEmail: clear(user.pending_email),
        appRole: user.app_role as string,
        identityType: user.identity_type as string,
        isActive: user.is_active as boolean,
        blocklistedAt: ts(user.blocklisted_at),
        verifiedAt: ts(user.verified_at),
        managedAreas: (user.managed_areas as string[] | null) ?? null,
        managedAreasWrite: (user.managed_areas_write as string[] | null) ?? null,
        createdAt: ts(user.created_at)!,
        updatedAt: ts(user.updated_at)!,
        deletionRequestedAt: ts(user.deletion_requested_at),
        retainUntil: ts(user.retain_until),
        erasedAt: ts(user.erased_at),
      },
      consents: consents.map((c) => ({ type: c.type as string, version: c.version as string, recordedAt: ts(c.recorded_at)! })),
      activations: activations.map((a) => ({
        id: a.id as string,
        orderId: a.order_id as string,
        orderItemId: a.order_item_id as string,
        operatorId: a.operator_id as string,
        packageId: a.package_id as string,
        iccid: a.iccid as string,
        simType: a.sim_type as string,
        esimProfile: (a.esim_profile as Row | null) ?? null,
        status: a.status as string,
        identityStatus: a.identity_status as string,
        identityRef: (a.identity_ref as string | null) ?? null,
        identityType: (a.identity_type as string | null) ?? null,
        idNumber: clear(a.id_number_encrypted),
        identityVerifiedAt: ts(a.identity_verified_at),
        activatedAt: ts(a.activated_at),
        failedReason: (a.failed_reason as string | null) ?? null,
        retainUntil: ts(a.retain_until),
        deletionRequestedAt: ts(a.deletion_requested_at),
        deletedAt: ts(a.deleted_at),
        createdAt: ts(a.created_at)!,
        updatedAt: ts(a.updated_at)!,
      })),
      orders: orders.map((o) => ({
        id: o.id as string,
        companyId: (o.company_id as string | null) ?? null,
        status: o.status as string,
        total: money(o.total_halalas, o.currency as string),
        items: (o.items as Row[]).map((i) => ({
          id: i.id as string,
          packageId: i.packageId as string,
          iccid: i.iccid as string,
          quantity: i.quantity as number,
          unitPrice: money(i.unitMinor, o.currency as string),
        })),
        createdAt: ts(o.created_at)!,
        updatedAt: ts(o.updated_at)!,
      })),
      payments: payments.map((p) => ({
        id: p.id as string,
        orderId: p.order_id as string,
        method: p.method as string,
        provider: p.provider as string,
        status: p.status as string,
        amount: money(p.amount_minor, p.currency as string),
        gatewayTransactionId: (p.gateway_transaction_id as string | null) ?? null,
        receiptNumber: (p.receipt_number as string | null) ?? null,
        failureReason: (p.failure_reason as string | null) ?? null,
        paidAt: ts(p.paid_at),
        createdAt: ts(p.created_at)!,
        updatedAt: ts(p.updated_at)!,
      })),
      storeOrders: storeOrders.map((s) => ({
        id: s.id as string,
        sku: s.sku as string,
        status: s.status as string,
        product: s.product_snapshot as Row,
        charge: money(s.charge_usd_cents, 'USD'),
        display: money(s.display_minor, s.display_currency as string),
        paymentId: (s.payment_id as string | null) ?? null,
        deviceModel: s.device_model as string,
        profile: s.profile_encrypted ? (JSON.parse(clear(s.profile_encrypted)!) as Row) : null,
        failureReason: (s.failure_reason as string | null) ?? null,
        deliverBy: ts(s.deliver_by),
        createdAt: ts(s.created_at)!,
        updatedAt: ts(s.updated_at)!,
        issuedAt: ts(s.issued_at),
      })),
      deviceAcknowledgements: devices.map((d) => ({
        id: d.id as string,
        deviceModel: d.device_model as string,
        acknowledgedAt: ts(d.acknowledged_at)!,
      })),
      rosterMemberships: roster.map((r) => ({
        rosterEntryId: r.id as string,
        companyId: r.company_id as string,
        companyName: r.company_name as string,
        status: r.status as string,
        nationality: (r.nationality as string | null) ?? null,
        packageId: (r.package_id as string | null) ?? null,
        links: (r.links as Row[]).map((l) => ({
          id: l.id as string,
          status: l.status as string,
          channel: (l.channel as string | null) ?? null,
          expiresAt: new Date(l.expiresAt as string).toISOString(),
          usedAt: l.usedAt ? new Date(l.usedAt as string).toISOString() : null,
          createdAt: new Date(l.createdAt as string).toISOString(),
        })),
        createdAt: ts(r.created_at)!,
        updatedAt: ts(r.updated_at)!,
      })),
      companyMemberships: memberships.map((m) => ({
        companyId: m.company_id as string,
        companyName: m.company_name as string,
        role: m.role as string,
        createdAt: ts(m.created_at)!,
      })),
      sessions: sessions.map((s) => ({
        clientType: s.client_type as string,
        createdAt: ts(s.created_at)!,
        expiresAt: ts(s.expires_at)!,
        revokedAt: ts(s.revoked_at),
      })),
    };
  }

  return { exportUser };
}

export type UserExport = ReturnType<typeof createUserExport>;
export type UserExportDocument = Awaited<ReturnType<UserExport['exportUser']>>;
