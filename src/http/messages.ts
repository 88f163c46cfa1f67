import type { Language } from './errors';

/** The `message` of every success response, in English and Arabic (errors have theirs in error-codes.ts). */
export interface SuccessMessageDefinition {
  en: string;
  ar: string;
}

export const successMessages = {
  // register, login, change-phone
  CODE_SENT: { en: 'Verification code sent', ar: 'تم إرسال رمز التحقق' },
  // logout
  SIGNED_OUT: { en: 'Signed out', ar: 'تم تسجيل الخروج' },
  // verify-change-phone
  PHONE_UPDATED: { en: 'Phone number updated', ar: 'تم تحديث رقم الجوال' },
  // verify-change-email
  EMAIL_UPDATED: { en: 'E-mail address updated', ar: 'تم تحديث البريد الإلكتروني' },
} as const satisfies Record<string, SuccessMessageDefinition>;

export type SuccessMessage = keyof typeof successMessages;

export function successMessage(key: SuccessMessage, lang: Language): string {
  return successMessages[key][lang];
}
