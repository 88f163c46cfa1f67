/**
 * What both demos (`npm run demo`, `npm run demo -- --b2b`) share: numbered steps with their
 * elapsed time, one line per request, polls that give up after a while, and the development
 * message sink where OTPs and invitation links land. Each caller has its own bearer token, so a
 * walk can switch between an administrator, a company admin and a staff member.
 */
import { readFile } from 'node:fs/promises';

export class DemoError extends Error {}

export interface DemoClientOptions {
  baseUrl: string;
  messagesFile: string;
  stepTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface CallOptions {
  /** Bearer token of the caller; none for public routes. */
  token?: string;
  expected?: number[];
  /** Polls print a line only when what they read changes. */
  quiet?: boolean;
  headers?: Record<string, string>;
}

export function createDemoClient(opts: DemoClientOptions) {
  const log = opts.log ?? ((line: string) => console.log(line));
  const timeoutMs = opts.stepTimeoutMs ?? 45_000;
  const started = Date.now();
  let stepNo = 0;
  let requests = 0;

  const elapsed = () => ((Date.now() - started) / 1000).toFixed(1);
  const step = (title: string) => log(`\n${++stepNo}. ${title}  (+${elapsed()}s)`);
  const show = (label: string, value: unknown) =>
    log(`   ${label.padEnd(14)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);

  /** The body is typed as the route's response schema declares it; nothing checks it at run time. */
  async function call<T = unknown>(method: string, route: string, body?: unknown, o: CallOptions = {}): Promise<T> {
    const res = await fetch(`${opts.baseUrl}${route}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-client-type': 'mobile',
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...o.headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    requests++;
    const text = await res.text();
    if (res.status === 429 && !o.expected?.includes(429)) throw new DemoError(rateLimited(method, route, res.headers.get('retry-after')));
    const json: unknown = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    if (!(o.expected ?? [200, 201]).includes(res.status)) throw new DemoError(`${method} ${route} answered ${res.status}: ${text}`);
    if (!o.quiet) log(`   ${method} ${route} -> ${res.status}`);
    return json as T;
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new DemoError(`gave up waiting for ${what} after ${timeoutMs / 1000}s`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  /** The first group of `pattern` in the newest message to `to` written since `since` (a fresh code, not an old one). */
  const awaitMessage = (what: string, to: string, pattern: RegExp, since: Date) =>
    until(what, async () => {
      for (const message of await messagesTo(opts.messagesFile, to)) {
        const found = new Date(message.at) >= since ? pattern.exec(message.text)?.[1] : undefined;
        if (found) return found;
      }
      return undefined;
    });

  /** For the closing line: the walk's share of the per-IP rate limit. */
  const summary = () => `${elapsed()}s, ${requests} requests`;

  return { log, step, show, call, until, awaitMessage, summary, messagesFile: opts.messagesFile };
}

export type DemoClient = ReturnType<typeof createDemoClient>;

interface SentMessage {
  at: string;
  to: string;
  text: string;
}

/** What the development sender wrote to `to` (SMS or e-mail), newest first. */
async function messagesTo(file: string, to: string): Promise<SentMessage[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SentMessage)
    .filter((m) => m.to === to)
    .reverse();
}

/** The API's global limit (100 requests per 15 minutes per IP) counts every walk from this machine. */
function rateLimited(method: string, route: string, retryAfter: string | null): string {
  return (
    `${method} ${route} answered 429: this machine spent the API's per-IP rate limit (RATE_LIMIT_MAX requests per ` +
    `RATE_LIMIT_WINDOW_SECONDS; 100 per 15 minutes by default). Try again in ${retryAfter ?? '?'} s, or restart ` +
    'the stack with a higher limit for local use: RATE_LIMIT_MAX=1000 npm start'
  );
}

export const OTP_PATTERN = /\b(\d{6})\b/;
