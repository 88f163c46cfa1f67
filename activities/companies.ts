import { ApplicationFailure, log } from '@temporalio/activity';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeAudit } from '../src/audit/writer';
import { revokeLiveSessions } from '../src/auth/repository';
import { sqlOf } from '../src/db/transition';
import { readinessOf } from '../src/companies/readiness';
import type { PersonalDataCipher } from '../src/lib/crypto';
import { MessageDeliveryError, type MessageSender } from '../src/providers/messages';
import { noticeMessage, type CompanyNoticeContent } from '../src/providers/templates';
import {
  COMPANY_INVALID_TRANSITION,
  COMPANY_NOT_FOUND,
  type CompanyAction,
  type CompanyNotice,
  type CompanyStatusValue,
  type NoticeDelivery,
  type Readiness,
} from '../workflows/company-contract';

export interface CompanyActivityDeps {
  orm: MikroORM;
  cipher: PersonalDataCipher;
  messages: MessageSender;
  clock?: () => Date;
}

/** A status change the workflow decided (its lock held, the transition checked against its status). */
export interface WriteCompanyStatus {
  companyId: string;
  from: CompanyStatusValue;
  to: CompanyStatusValue;
  action: CompanyAction;
  actorUserId: string;
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
}

const PURPOSES: Record<CompanyNotice, string> = { approved: 'company.approved', ready_to_send_links: 'company.ready_to_send_links' };

function noticeContent(notice: CompanyNotice, companyName: string): CompanyNoticeContent {
  return { kind: notice === 'approved' ? 'company_approved' : 'company_ready', companyName };
}

/**
 * Activities of the company onboarding workflow (workflows/company-onboarding.ts). Each is safe to
 * repeat: a retry after a crash changes nothing twice.
 */
export function createCompanyActivities(deps: CompanyActivityDeps) {
  const { orm, cipher } = deps;
  const clock = deps.clock ?? (() => new Date());
  const em = () => orm.em.fork();

  return {
    /**
     * The company row and its `company.status_changed` audit row, in one transaction. The update is
     * guarded by `status = from`, so a write can never skip a state; approve stamps approvedBy and
     * approvedAt (reactivate leaves them). A retry whose first attempt committed finds the row at `to`
     * already and writes nothing more.
     */
    async writeCompanyStatus(input: WriteCompanyStatus): Promise<void> {
      await em().transactional(async (tx) => {
        const now = clock();
        const approve = input.action === 'approve';
        const changed = await tx.execute<{ id: string }[]>(
          `update companies set status = ?, updated_at = ?,
                  approved_by = case when ? then ? else approved_by end,
                  approved_at = case when ? then ? else approved_at end
            where id = ? and status = ? returning id`,
          [input.to, now, approve, input.actorUserId, approve, now, input.companyId, input.from],
        );
        if (changed.length === 0) return alreadyWritten(tx, input);
        await writeAudit(sqlOf(tx), {
          action: 'company.status_changed',
          actorUserId: input.actorUserId,
          companyId: input.companyId,
          entityType: 'company',
          entityId: input.companyId,
          details: { from: input.from, to: input.to, action: input.action, reason: input.reason },
          ip: input.ip,
          userAgent: input.userAgent,
          at: now,
        });
      });
    },

    /**
     * Suspension: every live session of every member of the company ends now (the sessions' own
     * revocation, src/auth/sessions.ts). Repeating it ends nothing more.
     */
    async revokeCompanySessions(input: { companyId: string }): Promise<{ revoked: number }> {
      return em().transactional(async (tx) => {
        const members = await tx.execute<{ user_id: string }[]>('select user_id from company_users where company_id = ? order by user_id', [
          input.companyId,
        ]);
        const now = clock();
        let revoked = 0;
        for (const member of members) revoked += await revokeLiveSessions(sqlOf(tx), member.user_id, now);
        return { revoked };
      });
    },

    /** The four gates, from the database (src/companies/readiness.ts). */
    async companyReadiness(input: { companyId: string }): Promise<Readiness> {
      return readinessOf(sqlOf(em()), input.companyId);
    },

    /** Who gets a notice: each active portal admin of the company, by e-mail and by SMS where they have one. */
    async companyNoticeDeliveries(input: { companyId: string }): Promise<NoticeDelivery[]> {
      const rows = await em().execute<{ user_id: string; has_email: boolean; has_phone: boolean }[]>(
        `select u.id as user_id, u.email_encrypted is not null as has_email, u.phone_encrypted is not null as has_phone
           from company_users cu join users u on u.id = cu.user_id
          where cu.company_id = ? and cu.role = 'admin' and u.is_active and u.blocklisted_at is null
          order by u.id`,
        [input.companyId],
      );
      return rows.flatMap((row) => [
        ...(row.has_email ? [{ userId: row.user_id, channel: 'email' as const }] : []),
        ...(row.has_phone ? [{ userId: row.user_id, channel: 'sms' as const }] : []),
      ]);
    },

    /**
     * One message of a notice, in English and Arabic. A refused recipient is not retried (non-retryable);
     * a transient failure is thrown and retried a few times by the workflow, which then gives up.
     */
    async sendCompanyNotice(input: { companyId: string; notice: CompanyNotice } & NoticeDelivery): Promise<void> {
      const [row] = await em().execute<{ name: string; email_encrypted: string | null; phone_encrypted: string | null }[]>(
        `select c.name, u.email_encrypted, u.phone_encrypted
           from companies c join company_users cu on cu.company_id = c.id join users u on u.id = cu.user_id
          where c.id = ? and u.id = ?`,
        [input.companyId, input.userId],
      );
      const contact = input.channel === 'email' ? row?.email_encrypted : row?.phone_encrypted;
      if (!row || !contact) return; // no longer a member, or the contact was removed: nothing to send
      try {
        await deps.messages.send(
          noticeMessage({
            channel: input.channel,
            to: cipher.decrypt(contact),
            purpose: PURPOSES[input.notice],
            content: noticeContent(input.notice, row.name),
          }),
        );
      } catch (err) {
        if (err instanceof MessageDeliveryError && err.permanent) throw ApplicationFailure.nonRetryable(err.message, 'NoticeRefused');
        throw err;
      }
      log.info('company notice sent', { companyId: input.companyId, notice: input.notice, channel: input.channel, userId: input.userId });
    },
  };

  /** The guarded update changed nothing: our own earlier attempt committed, or the row is not where the workflow thinks. */
  async function alreadyWritten(tx: EntityManager, input: WriteCompanyStatus): Promise<void> {
    const [row] = await tx.execute<{ status: CompanyStatusValue }[]>('select status from companies where id = ?', [input.companyId]);
    if (!row) throw ApplicationFailure.create({ message: 'Company not found', type: COMPANY_NOT_FOUND, nonRetryable: true });
    if (row.status === input.to) return;
    throw ApplicationFailure.create({
      message: `company is ${row.status}, not ${input.from}`,
      type: COMPANY_INVALID_TRANSITION,
      nonRetryable: true,
      details: [{ from: row.status, action: input.action }],
    });
  }
}

export type CompanyActivities = ReturnType<typeof createCompanyActivities>;
