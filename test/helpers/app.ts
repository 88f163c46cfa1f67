import type { Express } from 'express';
import request from 'supertest';
import type { z } from 'zod';
import { createApp, type AppDeps } from '../../src/app';
import type { RegisterResponse, SignInResponse } from '../../src/auth/schemas';
import { loadConfig, type Config } from '../../src/config';
import type { Db } from '../../src/db/sql';
import { createLogger } from '../../src/http/logger';
import { createMemoryMessageSender, type OutgoingMessage } from '../../src/providers/messages';
import { createTestClock, type TestClock } from './clock';
import { createTestDatabase, type TestDatabase } from './db';
import { typed, type ErrorBody } from './responses';

export interface TestApp {
  app: Express;
  db: TestDatabase;
  clock: TestClock;
  config: Config;
  messages: OutgoingMessage[];
  /** Every JSON log line the app wrote. */
  logLines: string[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** What the app reaches its database through (a test that makes Postgres fail at a chosen point wraps it). */
  wrapDb?: (db: Db) => Db;
  deps?: Partial<
    Pick<
      AppDeps,
      | 'temporalReady'
      | 'activationRuns'
      | 'operators'
      | 'paymentProvider'
      | 'paymentRuns'
      | 'companyRuns'
      | 'quoteRuns'
      | 'meter'
      | 'storeProviders'
      | 'storeSyncs'
      | 'storeOrderRuns'
      | 'signalSender'
      | 'identity'
    >
  >;
}

/** The real app on its own real database, with a hand-moved clock and in-memory messages. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const clock = createTestClock();
  const sender = createMemoryMessageSender();
  const logLines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
  // The session cache is off by default here: tests change rows with SQL and read at once.
  const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_MAX: '1000000', SESSION_CACHE_SECONDS: '0', PORTAL_CACHE_MS: '0', ...opts.env });
  const app = createApp({
    config,
    db: opts.wrapDb ? opts.wrapDb(db.sql) : db.sql,
    logger,
    clock,
    messages: sender,
    temporalReady: () => Promise.resolve(),
    ...opts.deps,
  });
  const close = async () => {
    await (app.locals.stop as () => Promise<void>)();
    await db.drop();
    // Every answer of the file was checked against the document; one that broke it fails the file here,
    // even when no assertion looked at that answer.
    const violations = logLines.filter((line) => line.includes('answer breaks the API contract'));
    if (violations.length > 0) throw new Error(`answers broke the API contract:\n${violations.join('\n')}`);
  };
  return { app, db, clock, config, messages: sender.messages, logLines, close };
}

export const CONSENTS = [
  { type: 'terms_of_service', version: '2026-01' },
  { type: 'privacy_policy', version: '2026-01' },
  { type: 'data_processing', version: '2026-01' },
];

let phoneCounter = 0;
/** A unique Saudi number per call within a test file. */
export function newPhone(): string {
  phoneCounter += 1;
  return `+9665${String(process.pid % 1000).padStart(3, '0')}${String(phoneCounter).padStart(5, '0')}`;
}

/** The code of the newest message sent to `to`. */
export function lastCode(t: TestApp, to: string): string {
  const message = [...t.messages].reverse().find((m) => m.to === to);
  const code = message?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code sent to ${to}`);
  return code;
}

export const MOBILE = { 'X-Client-Type': 'mobile' };

/** Registers a phone user and signs in as mobile; returns the bearer token and user id. */
export async function signUp(t: TestApp, opts: { phone?: string; email?: string; name?: string } = {}) {
  const phone = opts.phone ?? (opts.email ? undefined : newPhone());
  const reg = typed<z.infer<typeof RegisterResponse>>(
    await request(t.app)
      .post('/auth/register')
      .send({ phone, email: opts.email, name: opts.name ?? 'Sara', consents: CONSENTS }),
  );
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const to = (phone ?? opts.email)!;
  const verify = typed<z.infer<typeof SignInResponse>>(
    await request(t.app)
      .post('/auth/verify-otp')
      .set(MOBILE)
      .send({ phone, email: phone ? undefined : opts.email, otp: lastCode(t, to) }),
  );
  if (verify.status !== 200) throw new Error(`verify failed: ${verify.status} ${JSON.stringify(verify.body)}`);
  // Each identifier is proven by its own code: with both, the e-mail's code proves the e-mail too.
  if (phone && opts.email) {
    const mail = await request(t.app)
      .post('/auth/verify-otp')
      .set(MOBILE)
      .send({ email: opts.email, otp: lastCode(t, opts.email) });
    if (mail.status !== 200) throw new Error(`e-mail verify failed: ${mail.status} ${JSON.stringify(mail.body)}`);
  }
  return { token: verify.body.session.token!, userId: reg.body.userId, phone, email: opts.email };
}

/** One JSON log line; tests read a few fields by name. */
export type LogEntry = Record<string, unknown> & { req?: { id: string; method: string; path: string } };
export const logEntries = (lines: readonly string[]): LogEntry[] => lines.map((l) => JSON.parse(l) as LogEntry);

/** The error code of an answer (any answer, typed or not), or undefined. */
export const errorCode = (res: { body?: unknown }) => (res.body as Partial<ErrorBody> | undefined)?.error?.code;
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Retries an assertion until it passes or `timeoutMs` ends (for work that settles asynchronously). */
export async function eventually(assertion: () => Promise<void> | void, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
