import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Language } from '../http/errors';

export type Channel = 'sms' | 'email';

/**
 * What a message says, as data: the real senders render it in the recipient's language, or in
 * English and Arabic together when the caller does not know the language (src/providers/templates.ts).
 */
export type MessageContent =
  | { kind: 'otp'; code: string; ttlSeconds: number }
  | { kind: 'esim_ready'; activationCode: string }
  /** To a company's portal admins: the company was approved. */
  | { kind: 'company_approved'; companyName: string }
  /** To a company's portal admins: contract, payment and roster are all in place (canSendLinks turned true). */
  | { kind: 'company_ready'; companyName: string }
  /** To an account's proven phone or e-mail: an identifier it named but never proved signed it in for the first time (masked). */
  | { kind: 'identifier_proven'; identifier: string };

export interface OutgoingMessage {
  channel: Channel;
  to: string;
  /** What the message is for, e.g. `otp.login`, `otp.change_phone`. */
  purpose: string;
  /** The body in English (company notices: English and Arabic); for OTPs it holds the code, for invitations the link. The development file shows it. */
  text: string;
  /** The same message as data, for the real senders' bilingual rendering; without it they send `text`. */
  content?: MessageContent;
  /** The recipient's language when the caller knows it; unset: both languages. */
  language?: Language;
}

/**
 * A message was not delivered (refused, provider down, timed out). The message names the channel
 * and the failure only, never the recipient or the provider's answer text: it reaches logs and
 * Temporal history.
 */
export class MessageDeliveryError extends Error {
  constructor(
    readonly channel: Channel,
    detail: string,
    /** True when sending the same message again cannot succeed (a refused recipient, a 4xx). */
    readonly permanent: boolean,
  ) {
    super(`${channel === 'sms' ? 'SMS' : 'e-mail'} not sent: ${detail}`);
    this.name = 'MessageDeliveryError';
  }
}

/** Outgoing SMS and e-mail. Real providers implement the same interface. */
export interface MessageSender {
  send(message: OutgoingMessage): Promise<void>;
}

/**
 * Development provider: appends one JSON line `{ at, channel, to, purpose, text }`
 * per message to a file, so a person trying the API locally can read their code.
 */
export function createFileMessageSender(file: string, clock: () => Date = () => new Date()): MessageSender {
  const ready = mkdir(path.dirname(path.resolve(file)), { recursive: true });
  return {
    async send(message) {
      await ready;
      // Exactly the documented line: `{ at, channel, to, purpose, text }`.
      const { channel, to, purpose, text } = message;
      const line = JSON.stringify({ at: clock().toISOString(), channel, to, purpose, text });
      await appendFile(file, `${line}\n`, { mode: 0o600 });
    },
  };
}

/** Keeps messages in memory; tests read codes from it. */
export function createMemoryMessageSender(): MessageSender & { messages: OutgoingMessage[] } {
  const messages: OutgoingMessage[] = [];
  return {
    messages,
    send(message) {
      messages.push(message);
      return Promise.resolve();
    },
  };
}

/** Routes each channel to its sender (e.g. SMS over HTTP, e-mail over SMTP, or the file for either). */
export function createChannelSender(senders: Record<Channel, MessageSender>): MessageSender {
  return { send: (message) => senders[message.channel].send(message) };
}
