import type { Language } from '../http/errors';
import type { MessageContent, OutgoingMessage } from './messages';

/**
 * Subjects and bodies of the messages the real senders deliver. A message goes out in the
 * recipient's language when the caller names it, otherwise in English and Arabic together
 * (English first; each language a block of its own, so each reads in its own direction). The
 * company notices are always in both: the spec calls them bilingual, whatever language is named.
 * A message without `content` (a purpose this file does not know) is sent as the caller's text.
 */
type Bilingual = Record<Language, string>;

const BRAND = 'activation-sys';

const SUBJECTS: Record<string, Bilingual> = {
  'otp.register': { en: `Confirm your ${BRAND} account`, ar: `تأكيد حسابك في ${BRAND}` },
  'otp.login': { en: `Your ${BRAND} sign-in code`, ar: `رمز الدخول إلى ${BRAND}` },
  'otp.change_phone': { en: 'Confirm your new phone number', ar: 'تأكيد رقم هاتفك الجديد' },
  'esim.qr': { en: 'Your eSIM is ready', ar: 'شريحتك الإلكترونية (eSIM) جاهزة' },
  'company.approved': { en: 'Your company account is approved', ar: 'تمت الموافقة على حساب شركتك' },
  'company.ready_to_send_links': { en: 'You can now send invitation links', ar: 'يمكنك الآن إرسال روابط الدعوة' },
  'account.identifier_proven': { en: `A new sign-in to your ${BRAND} account`, ar: `تسجيل دخول جديد إلى حسابك في ${BRAND}` },
};
const OTP_SUBJECT: Bilingual = { en: `Your ${BRAND} verification code`, ar: `رمز التحقق من ${BRAND}` };
const GENERIC_SUBJECT: Bilingual = { en: `A message from ${BRAND}`, ar: `رسالة من ${BRAND}` };

/** English and Arabic counted nouns ("1 minute", "دقيقتان", "5 دقائق", "15 دقيقة"). */
const minutesIn: Record<Language, (n: number) => string> = {
  en: (n) => (n === 1 ? '1 minute' : `${n} minutes`),
  ar: (n) => {
    if (n === 1) return 'دقيقة واحدة';
    if (n === 2) return 'دقيقتين';
    if (n >= 3 && n <= 10) return `${n} دقائق`;
    return `${n} دقيقة`;
  },
};

const minutesOf = (seconds: number) => Math.max(1, Math.round(seconds / 60));

export type CompanyNoticeContent = Extract<MessageContent, { kind: 'company_approved' | 'company_ready' }>;

/** The company notices: the same words by e-mail and SMS, in both languages always (languagesOf). */
function companyNotice(content: CompanyNoticeContent, lang: Language): string {
  const name = content.companyName;
  if (content.kind === 'company_approved') {
    return lang === 'en'
      ? `${name} is approved on ${BRAND}. You can now sign in to the company portal and stage your people.`
      : `تمت الموافقة على ${name} في ${BRAND}. يمكنك الآن الدخول إلى بوابة الشركة وإضافة الأشخاص.`;
  }
  return lang === 'en'
    ? `${name} is ready on ${BRAND}: the contract, payment and roster are in place. You can now send invitation links.`
    : `${name} جاهزة في ${BRAND}: العقد والدفع وقائمة الأشخاص مكتملة. يمكنك الآن إرسال روابط الدعوة.`;
}

/** The account notice: the same words by e-mail and SMS. */
function identifierProven(content: Extract<MessageContent, { kind: 'identifier_proven' }>, lang: Language): string {
  return lang === 'en'
    ? `${content.identifier} has just signed in to your ${BRAND} account for the first time. If that was not you, remove it from your profile or contact support.`
    : `تم تسجيل الدخول إلى حسابك في ${BRAND} لأول مرة باستخدام ${content.identifier}. إذا لم تكن أنت، فاحذفه من ملفك الشخصي أو تواصل مع الدعم.`;
}

function emailBody(content: MessageContent, lang: Language): string {
  if (content.kind === 'company_approved' || content.kind === 'company_ready') return companyNotice(content, lang);
  if (content.kind === 'identifier_proven') return identifierProven(content, lang);
  if (content.kind === 'otp') {
    const minutes = minutesIn[lang](minutesOf(content.ttlSeconds));
    return lang === 'en'
      ? `Your ${BRAND} code is ${content.code}. It expires in ${minutes}.\n\nNever share this code with anyone. If you did not ask for it, ignore this message.`
      : `رمز التحقق الخاص بك في ${BRAND} هو ${content.code}. تنتهي صلاحيته خلال ${minutes}.\n\nلا تشارك هذا الرمز مع أي شخص. إذا لم تطلبه، تجاهل هذه الرسالة.`;
  }
  return lang === 'en'
    ? `Your eSIM is ready.\n\nScan its QR code in the ${BRAND} app, or add it on your phone by hand with this activation code:\n\n${content.activationCode}`
    : `شريحتك الإلكترونية (eSIM) جاهزة.\n\nامسح رمز QR الخاص بها في تطبيق ${BRAND}، أو أضفها يدويًا في هاتفك برمز التفعيل التالي:\n\n${content.activationCode}`;
}

function smsBody(content: MessageContent, lang: Language): string {
  if (content.kind === 'company_approved' || content.kind === 'company_ready') return companyNotice(content, lang);
  if (content.kind === 'identifier_proven') return identifierProven(content, lang);
  if (content.kind === 'otp') {
    const minutes = minutesIn[lang](minutesOf(content.ttlSeconds));
    return lang === 'en'
      ? `Your ${BRAND} code is ${content.code}. It expires in ${minutes}. Never share it.`
      : `رمز ${BRAND} الخاص بك هو ${content.code}، صالح لمدة ${minutes}. لا تشاركه مع أحد.`;
  }
  return lang === 'en' ? `Your eSIM is ready: ${content.activationCode}` : `شريحتك الإلكترونية جاهزة: ${content.activationCode}`;
}

const BOTH: Language[] = ['en', 'ar'];
const isCompanyNotice = (content: MessageContent | undefined): content is CompanyNoticeContent =>
  content?.kind === 'company_approved' || content?.kind === 'company_ready';
const languagesOf = (message: OutgoingMessage): Language[] =>
  message.language && !isCompanyNotice(message.content) ? [message.language] : BOTH;

function subjectOf(message: OutgoingMessage): Bilingual {
  const known = SUBJECTS[message.purpose];
  if (known) return known;
  return message.content?.kind === 'otp' || message.purpose.startsWith('otp.') ? OTP_SUBJECT : GENERIC_SUBJECT;
}

export const EMAIL_SEPARATOR = '\n\n----------------------------------------\n\n';

/** Subject (one line, both languages unless one is named), plain-text body and Content-Language of an e-mail. */
export function renderEmail(message: OutgoingMessage): { subject: string; text: string; language: string } {
  const languages = languagesOf(message);
  const subjects = subjectOf(message);
  const { content } = message;
  return {
    subject: languages.map((lang) => subjects[lang]).join(' | '),
    text: content ? languages.map((lang) => emailBody(content, lang)).join(EMAIL_SEPARATOR) : message.text,
    language: languages.join(', '),
  };
}

/**
 * A company notice as the senders are handed it: `text` is already the bilingual body of its channel,
 * so the development file (which writes `text` alone) shows what the real senders deliver.
 */
export function noticeMessage(
  message: Pick<OutgoingMessage, 'channel' | 'to' | 'purpose'> & { content: CompanyNoticeContent },
): OutgoingMessage {
  const bilingual: OutgoingMessage = { ...message, text: '' };
  return { ...bilingual, text: message.channel === 'email' ? renderEmail(bilingual).text : renderSms(bilingual) };
}

/** The text of an SMS: short, both languages on separate lines unless one is named. */
export function renderSms(message: OutgoingMessage): string {
  const { content } = message;
  if (!content) return message.text;
  return languagesOf(message)
    .map((lang) => smsBody(content, lang))
    .join('\n');
}

/** A message's short text in one language (the English `text` a caller stores beside its content). */
export function shortText(content: MessageContent, lang: Language = 'en'): string {
  return smsBody(content, lang);
}
