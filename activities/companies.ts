import { ApplicationFailure, log } from '@temporalio/activity';
import { writeAudit } from '../src/audit/writer';
import { revokeLiveSessions } from '../src/auth';
import type { Db, Sql } from '../src/db/sql';
import { readinessOf } from '../src/companies/readiness';
import { companyStatus, memberIds, noticeContact, noticeRecipients, writeCompanyStatus } from '../src/companies/repository';
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
} from '../workflows/contracts/company-contract';

export interface CompanyActivityDeps {
  db: Db;
  /** Reads a notice's recipients. */
  cipher: Pick<PersonalDataCipher, 'decrypt'>;
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
  const { db, cipher } = deps;
  const clock = deps.clock ?? (() => new Date());

  return {
    /**
     * The company row and its `company.status_changed` audit row, in one transaction. The update is
     * guarded by `status = from`, so a write can never skip a state; approve stamps approvedBy and
     * approvedAt (reactivate leaves them). A retry whose first attempt committed finds the row at `to`
     * already and writes nothing more.
     */
    async writeCompanyStatus(input: WriteCompanyStatus): Promise<void> {
      await db.transaction(async (tx) => {
        const now = clock();
        const { companyId, from, to, actorUserId } = input;
        const changed = await writeCompanyStatus(tx, { companyId, from, to, approve: input.action === 'approve', actorUserId, now });
        if (!changed) return alreadyWritten(tx, input);
        await writeAudit(tx, {
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
      return db.transaction(async (tx) => {
        const members = await memberIds(tx, input.companyId);
        const now = clock();
        let revoked = 0;
        for (const userId of members) revoked += await revokeLiveSessions(tx, userId, now);
        return { revoked };
      });
    },

    /** The four gates, from the database (src/companies/readiness.ts). */
    async companyReadiness(input: { companyId: string }): Promise<Readiness> {
      return readinessOf(db, input.companyId);
    },

    /** Who gets a notice: each active portal admin of the company, by e-mail and by SMS where they have one. */
    async companyNoticeDeliveries(input: { companyId: string }): Promise<NoticeDelivery[]> {
      const recipients = await noticeRecipients(db, input.companyId);
      return recipients.flatMap((r) => [
        ...(r.hasEmail ? [{ userId: r.userId, channel: 'email' as const }] : []),
        ...(r.hasPhone ? [{ userId: r.userId, channel: 'sms' as const }] : []),
      ]);
    },

    /**
     * One message of a notice, in English and Arabic. A refused recipient is not retried (non-retryable);
     * a transient failure is thrown and retried a few times by the workflow, which then gives up.
     */
    async sendCompanyNotice(input: { companyId: string; notice: CompanyNotice } & NoticeDelivery): Promise<void> {
      const row = await noticeContact(db, input.companyId, input.userId);
      const contact = input.channel === 'email' ? row?.emailEncrypted : row?.phoneEncrypted;
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
  async function alreadyWritten(tx: Sql, input: WriteCompanyStatus): Promise<void> {
    const status = await companyStatus(tx, input.companyId);
    if (!status) throw ApplicationFailure.create({ message: 'Company not found', type: COMPANY_NOT_FOUND, nonRetryable: true });
    if (status === input.to) return;
    throw ApplicationFailure.create({
      message: `company is ${status}, not ${input.from}`,
      type: COMPANY_INVALID_TRANSITION,
      nonRetryable: true,
      details: [{ from: status, action: input.action }],
    });
  }
}

export type CompanyActivities = ReturnType<typeof createCompanyActivities>;
