/**
 * The two company notices. b2b-portal.md, Events: "Company approved | Bilingual e-mail and SMS to
 * company admin members" and "canSendLinks flips to true | Bilingual e-mail and SMS to company portal
 * admins": each message carries English and Arabic together, always, whatever language a caller names.
 */
import type { Language } from '../../src/http/errors';
import type { Channel, MessageContent } from '../../src/providers/messages';
import { noticeMessage, renderEmail, renderSms, type CompanyNoticeContent } from '../../src/providers/templates';

const ARABIC = /[\u0600-\u06FF]/;
const notices: [string, CompanyNoticeContent, RegExp][] = [
  ['company.approved', { kind: 'company_approved', companyName: 'Acme' }, /Acme is approved/],
  ['company.ready_to_send_links', { kind: 'company_ready', companyName: 'Acme' }, /Acme is ready[\s\S]*send invitation links/],
];
const channels: Channel[] = ['email', 'sms'];
const languages: (Language | undefined)[] = [undefined, 'en', 'ar'];

/** English first, then Arabic, each naming the company. */
function expectBilingual(body: string, english: RegExp) {
  expect(body).toMatch(english);
  const arabic = body.slice(body.search(english));
  expect(arabic).toMatch(ARABIC);
  expect(body.match(/Acme/g)).toHaveLength(2);
}

describe.each(notices)('%s', (purpose, content, english) => {
  it.each(channels)('the %s text the sender is handed (the development file shows it) is English and Arabic', (channel) => {
    const message = noticeMessage({ channel, to: 'x', purpose, content });
    expect(message).toMatchObject({ channel, to: 'x', purpose, content });
    expectBilingual(message.text, english);
    // The same words the real senders deliver.
    expect(message.text).toBe(channel === 'email' ? renderEmail(message).text : renderSms(message));
  });

  it.each(languages)('the real senders render both languages, whatever the language named (%s)', (language) => {
    const email = renderEmail({ channel: 'email', to: 'a@example.com', purpose, text: '', content, language });
    expectBilingual(email.text, english);
    expect(email.subject).toMatch(/[A-Za-z].*\|.*[\u0600-\u06FF]/);
    expect(email.language).toBe('en, ar'); // the SMTP sender's Content-Language
    expectBilingual(renderSms({ channel: 'sms', to: '+966500000001', purpose, text: '', content, language }), english);
  });
});

describe('other messages', () => {
  it("still go out in the recipient's language alone when the caller names it", () => {
    const otp: MessageContent = { kind: 'otp', code: '123456', ttlSeconds: 300 };
    expect(renderSms({ channel: 'sms', to: '+966500000001', purpose: 'otp.login', text: '', content: otp, language: 'en' })).not.toMatch(
      ARABIC,
    );
  });
});
