import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { writeAudit, type CompanyActor } from '../audit/writer';
import { readinessOf } from '../companies/readiness';
import { committedHalalas, drawnHalalas, findContract, paidHalalas } from '../contracts';
import type { Db, Tx } from '../db/sql';
import type { LinkChannel, LinkStatus } from '../entities';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import { itemResult, LINK_MINT_CODES, LINK_REVOKE_CODES, LINK_SEND_CODES, type ItemResult } from '../http/item-results';
import { sha256Hex, type PersonalDataCipher } from '../lib/crypto';
import type { Channel, MessageSender } from '../providers/messages';
import { findCompany } from '../companies';
import { catalogPrices } from '../quotes';
import * as repo from './repository';

/** Link lifetime (spec "Limits"). */
export const LINK_LIFETIME_MS = 24 * 3_600_000;
/** 32 random bytes: 256 bits, 43 base64url characters (POST /auth/magic-link takes 20-200). */
const TOKEN_BYTES = 32;
/** Invitations delivered at once by send. */
const DELIVERY_CONCURRENCY = 10;

type Contacts = { phone: string | null; email: string | null };
/** Send's channel: every contact the person has. */
const channelOf = (m: Contacts): LinkChannel | null => (m.email && m.phone ? 'email_sms' : m.email ? 'email' : m.phone ? 'sms' : null);

export interface LinksDeps {
  db: Db;
  cipher: PersonalDataCipher;
  messages: MessageSender;
  clock: () => Date;
  logger: Logger;
  /** PUBLIC_BASE_URL: raw links are `${base}/invite#token=…`. */
  publicBaseUrl: string;
}

export type LinksActor = CompanyActor;

export interface MintRequest {
  rosterIds: string[];
  contractItemId?: string;
  packageId?: string;
}

type MintCode = (typeof LINK_MINT_CODES)[number];
type SendCode = (typeof LINK_SEND_CODES)[number];
type RevokeCode = (typeof LINK_REVOKE_CODES)[number];
export type Skip<C extends SendCode | RevokeCode = MintCode> = ItemResult<C, { rosterId: string }>;

/** A link minted in this call: the raw token lives only in memory, until the answer or the message. */
interface Minted {
  rosterId: string;
  linkId: string;
  name: string;
  phone: string | null;
  email: string | null;
  link: string;
  expiresAt: Date;
}

const byRosterId = (a: { rosterId: string }, b: { rosterId: string }) => (a.rosterId < b.rosterId ? -1 : a.rosterId > b.rosterId ? 1 : 0);
const skip = <C extends SendCode | RevokeCode>(rosterId: string, code: C): Skip<C> => itemResult(code, { rosterId });

/**
 * The link pipeline of the portal: minting (send, export, reissue-expired) and revoking. (An
 * entry's assignment and removal, guarded by the seats links hold, are the roster's: src/roster.)
 */
export function createLinks(deps: LinksDeps) {
  const { db, cipher, clock } = deps;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const decrypt = (stored: string | null) => (stored ? cipher.decrypt(stored) : null);

  /**
   * Mints one link per accepted entry in one transaction, with the company row locked so two admins
   * minting for one company at once see each other's seats and commitments. Entries are decided in
   * rosterId order; each skipped entry gets its code and nothing is written for it.
   */
  async function mint(
    actor: LinksActor,
    req: MintRequest,
    mode: { status: LinkStatus; channel: (contacts: Contacts) => LinkChannel | null; action: string },
  ) {
    const now = clock();
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
    return db.transaction(async (tx) => {
      await findCompany(tx, actor.companyId, { lock: true });
      if (!(await readinessOf(tx, actor.companyId)).canSendLinks) throw new AppError('COMPANY_NOT_READY');
      const contract = await findContract(tx, { companyId: actor.companyId });
      if (!contract) throw new AppError('COMPANY_NOT_READY');
      const ids = [...new Set(req.rosterIds.map((id) => id.toLowerCase()))].sort();
      const decide =
        contract.payment_mode === 'flexible'
          ? await flexibleDecider(tx, contract.id, actor.companyId, req.packageId, now)
          : await prepaidDecider(tx, contract.id, req.contractItemId, now);
      const found = new Map((await repo.mintCandidates(tx, actor.companyId, ids.filter(isUuid), now)).map((c) => [c.id, c]));
      const skipped: Skip[] = [];
      const accepted: { c: repo.MintCandidate; packageId: string; contractItemId: string | null; priceHalalas: number }[] = [];
      for (const id of ids) {
        const c = found.get(id);
        if (!c) skipped.push(skip(id, 'ROSTER_ENTRY_NOT_FOUND'));
        else if (c.activated) skipped.push(skip(id, 'LINK_USER_ALREADY_ACTIVE'));
        else {
          const decision = decide(c);
          if ('code' in decision) skipped.push(skip(id, decision.code));
          else accepted.push({ c, ...decision });
        }
      }
      const minted: Minted[] = [];
      const links: repo.NewLink[] = accepted.map(({ c, packageId, contractItemId, priceHalalas }) => {
        const token = randomBytes(TOKEN_BYTES).toString('base64url');
        const linkId = randomUUID();
        const phone = decrypt(c.phoneEncrypted);
        const email = decrypt(c.emailEncrypted);
        minted.push({ rosterId: c.id, linkId, name: c.name, phone, email, link: `${base}/invite#token=${token}`, expiresAt });
        return {
          id: linkId,
          tokenHash: sha256Hex(token),
          userId: c.userId,
          rosterEntryId: c.id,
          packageId,
          contractItemId,
          unitPriceHalalas: priceHalalas,
          channel: mode.channel({ phone, email }),
        };
      });
      await repo.writeLinks(tx, { companyId: actor.companyId, createdBy: actor.userId, status: mode.status, now, expiresAt }, links);
      await writeAudit(tx, {
        action: 'company.links_minted',
        actorUserId: actor.userId,
        companyId: actor.companyId,
        entityType: 'roster',
        entityId: actor.companyId,
        details: { via: mode.action, requested: ids.length, minted: minted.length, skipped: skipped.length },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { minted, skipped };
    });
  }

  type Decision = { packageId: string; contractItemId: string | null; priceHalalas: number } | { code: MintCode };

  /**
   * Prepaid: the entry's line is the one it already holds a seat on, else the request's default,
   * else its own assignment. A person already holding a seat on the line re-mints without drawing
   * another; otherwise the line must have a seat left (counting those accepted earlier in the batch).
   */
  async function prepaidDecider(tx: Tx, contractId: string, defaultItem: string | undefined, now: Date) {
    const lines = new Map((await repo.contractLines(tx, contractId, now)).map((l) => [l.id, { ...l, used: l.consumed }]));
    if (defaultItem !== undefined && !lines.has(defaultItem.toLowerCase())) throw new AppError('CONTRACT_ITEM_NOT_FOUND');
    return (c: repo.MintCandidate): Decision => {
      const itemId = c.holdsSeat ? (c.seatItemId ?? c.contractItemId) : (defaultItem?.toLowerCase() ?? c.contractItemId);
      const line = itemId ? lines.get(itemId) : undefined;
      if (!line) return { code: 'LINK_PACKAGE_NOT_ASSIGNED' };
      if (c.seatItemId !== line.id) {
        if (line.used >= line.qty) return { code: 'ACTIVATION_QUOTA_EXCEEDED' };
        line.used += 1;
      }
      return { packageId: line.packageId, contractItemId: line.id, priceHalalas: Number(line.unitPriceHalalas) };
    };
  }

  /**
   * Flexible: the entry's package is its own when it already holds a seat, else the request's
   * default, else its own. The package must still have a B2B price, and the balance (funded −
   * drawn − committed − accepted so far in this batch) must cover it; a person already committed
   * draws only the difference to the snapshot they hold.
   */
  async function flexibleDecider(tx: Tx, contractId: string, companyId: string, defaultPackage: string | undefined, now: Date) {
    // The balance's own figures (src/contracts, as balance.ts reads them), in halalas: funded − drawn − committed.
    let available =
      (await paidHalalas(tx, contractId)) - (await drawnHalalas(tx, companyId)) - (await committedHalalas(tx, companyId, now));
    const wanted = defaultPackage?.toLowerCase();
    const ownPackages = await repo.assignedPackages(tx, companyId);
    const prices = await catalogPrices(tx, wanted ? [wanted, ...ownPackages] : ownPackages);
    if (wanted !== undefined && !prices.has(wanted)) throw new AppError('PACKAGE_NOT_FOUND');
    return (c: repo.MintCandidate): Decision => {
      const packageId = c.holdsSeat ? c.packageId : (wanted ?? c.packageId);
      if (!packageId) return { code: 'LINK_PACKAGE_NOT_ASSIGNED' };
      const price = prices.get(packageId);
      if (price === undefined) return { code: 'LINK_PACKAGE_UNAVAILABLE' };
      const held = c.holdsSeat && c.unitPriceHalalas !== null ? Number(c.unitPriceHalalas) : 0;
      const draw = price - held;
      if (draw > 0 && available < draw) return { code: 'COMPANY_BALANCE_EXCEEDED' };
      available -= draw;
      return { packageId, contractItemId: null, priceHalalas: price };
    };
  }

  /** POST /b2b/roster/links/export (and reissue-expired): raw links in the answer, `exported`. */
  async function exportLinks(actor: LinksActor, req: Omit<MintRequest, 'rosterIds'> & { rosterIds?: string[] }, action = 'export') {
    const rosterIds = req.rosterIds ?? (await repo.eligibleEntryIds(db, actor.companyId, clock()));
    const { minted, skipped } = await mint(actor, { ...req, rosterIds }, { status: 'exported', channel: () => 'export', action });
    return {
      entries: minted.sort(byRosterId).map((m) => ({
        rosterId: m.rosterId,
        name: m.name,
        contact: m.email ?? m.phone,
        link: m.link,
        expiresAt: m.expiresAt.toISOString(),
      })),
      skipped: skipped.sort(byRosterId),
    };
  }

  /** Entries whose latest link is effectively expired, re-minted through export; nothing expired: nothing happens. */
  async function reissueExpired(actor: LinksActor) {
    const ids = await repo.expiredEntryIds(db, actor.companyId, clock());
    if (ids.length === 0) return { entries: [], skipped: [] };
    return exportLinks(actor, { rosterIds: ids }, 'reissue_expired');
  }

  /**
   * POST /b2b/roster/links/send: mint (`issued`) and commit, then deliver outside the transaction
   * (no company lock held over the network); a link whose every channel failed becomes `failed`.
   */
  async function send(actor: LinksActor, req: MintRequest) {
    const { minted, skipped } = await mint(actor, req, { status: 'issued', channel: channelOf, action: 'send' });
    const sent: string[] = [];
    const failed: Skip<SendCode>[] = [...skipped];
    const failedIds: string[] = [];
    // A few deliveries at a time: a 500-entry batch does not wait on 1,000 sequential provider calls.
    for (let i = 0; i < minted.length; i += DELIVERY_CONCURRENCY) {
      const chunk = minted.slice(i, i + DELIVERY_CONCURRENCY);
      const results = await Promise.all(chunk.map(deliver));
      chunk.forEach((m, j) => {
        if (results[j]) sent.push(m.linkId);
        else {
          failedIds.push(m.linkId);
          failed.push(skip(m.rosterId, 'LINK_DELIVERY_FAILED'));
        }
      });
    }
    await db.transaction((tx) => repo.markDelivered(tx, sent, failedIds, clock()));
    return { sent: sent.length, failed: failed.sort(byRosterId) };
  }

  /** Every channel the person has; delivered when at least one took the message. Failures are logged without recipient or link. */
  async function deliver(m: Minted): Promise<boolean> {
    const targets: [Channel, string][] = [];
    if (m.email) targets.push(['email', m.email]);
    if (m.phone) targets.push(['sms', m.phone]);
    let delivered = false;
    for (const [channel, to] of targets) {
      try {
        await deps.messages.send({
          channel,
          to,
          purpose: 'b2b.invitation',
          text: `Your SIM invitation (valid 24 hours): ${m.link}\nدعوتك لتفعيل الشريحة (صالحة 24 ساعة): ${m.link}`,
        });
        delivered = true;
      } catch (err) {
        deps.logger.warn(
          { channel, rosterId: m.rosterId, failure: err instanceof Error ? err.name : 'unknown' },
          'invitation delivery failed',
        );
      }
    }
    return delivered;
  }

  /** POST /b2b/roster/links/revoke: per entry, revoked or skipped; audited once with counts. */
  async function revoke(actor: LinksActor, rosterIds: string[]) {
    const now = clock();
    const ids = [...new Set(rosterIds.map((id) => id.toLowerCase()))].sort();
    return db.transaction(async (tx) => {
      const found = new Map((await repo.revokeCandidates(tx, actor.companyId, ids.filter(isUuid))).map((c) => [c.id, c]));
      const revoked: { rosterId: string }[] = [];
      const skipped: Skip<RevokeCode>[] = [];
      for (const id of ids) {
        const c = found.get(id);
        if (!c) skipped.push(skip(id, 'ROSTER_ENTRY_NOT_FOUND'));
        else if (c.redeemed) skipped.push(skip(id, 'LINK_ALREADY_USED'));
        else if (!c.active) skipped.push(skip(id, 'NO_ACTIVE_LINK'));
        else revoked.push({ rosterId: id });
      }
      await repo.revokeLinks(
        tx,
        revoked.map((r) => r.rosterId),
        now,
      );
      await writeAudit(tx, {
        action: 'company.links_revoke',
        actorUserId: actor.userId,
        companyId: actor.companyId,
        entityType: 'roster',
        entityId: actor.companyId,
        details: { requested: ids.length, revoked: revoked.length, skipped: skipped.length },
        ip: actor.ip,
        userAgent: actor.userAgent,
        at: now,
      });
      return { revoked, skipped };
    });
  }

  return { send, exportLinks, reissueExpired, revoke };
}

export type Links = ReturnType<typeof createLinks>;
