import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

export type Channel = 'sms' | 'email';

export interface OutgoingMessage {
  channel: Channel;
  to: string;
  /** What the message is for, e.g. `otp.login`, `otp.change_phone`. */
  purpose: string;
  /** The body; for OTPs it holds the code, for invitations the link. */
  text: string;
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
      const line = JSON.stringify({ at: clock().toISOString(), ...message });
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
