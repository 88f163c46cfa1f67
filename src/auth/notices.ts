import type { Logger } from 'pino';
import { maskEmail, maskPhone } from '../admin-links/mask';
import type { UserRow } from '../entities';
import type { PersonalDataCipher } from '../lib/crypto';
import type { MessageContent, MessageSender, OutgoingMessage } from '../providers/messages';
import { shortText } from '../providers/templates';
import type { IdentifierKind } from './identifiers';

/**
 * What an account's other channel is told when an identifier the account named but never proved
 * signs it in for the first time. One account may hold a phone and an e-mail (the spec's own model),
 * and the one never proven may belong to somebody else (a typing slip, or a name put there on
 * purpose): the notice tells the holder of the proven one, so they can remove it (PUT /auth/me) or
 * ask support, instead of learning it from their history.
 */
export function identifierProvenNotices(user: UserRow, proven: IdentifierKind, cipher: PersonalDataCipher): OutgoingMessage[] {
  const other: IdentifierKind = proven === 'phone' ? 'email' : 'phone';
  const otherEncrypted = other === 'phone' ? user.phoneEncrypted : user.emailEncrypted;
  const otherProven = other === 'phone' ? user.phoneProven : user.emailProven;
  const provenEncrypted = proven === 'phone' ? user.phoneEncrypted : user.emailEncrypted;
  if (!otherEncrypted || !otherProven || !provenEncrypted) return [];
  const value = cipher.decrypt(provenEncrypted);
  const content: MessageContent = { kind: 'identifier_proven', identifier: proven === 'phone' ? maskPhone(value) : maskEmail(value) };
  return [
    {
      channel: other === 'phone' ? 'sms' : 'email',
      to: cipher.decrypt(otherEncrypted),
      purpose: 'account.identifier_proven',
      text: shortText(content),
      content,
    },
  ];
}

/** Notices are best effort: the sign-in they report has happened either way. */
export async function sendNotices(messages: MessageSender, logger: Pick<Logger, 'warn'>, notices: OutgoingMessage[]): Promise<void> {
  for (const notice of notices) {
    await messages.send(notice).catch((err: unknown) => logger.warn({ err, purpose: notice.purpose }, 'account notice not sent'));
  }
}
