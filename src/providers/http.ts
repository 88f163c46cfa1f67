import type { Logger } from 'pino';

/**
 * JSON over HTTP for the provider adapters (SMS, identity, operators): one request with a
 * per-attempt timeout, retried with exponential backoff on transient failures only.
 *
 * - 2xx: the answer (its JSON body, or undefined when it has none or is not JSON).
 * - 408, 425, 429, 5xx, a network failure or no answer within `timeoutMs`: transient; retried
 *   up to `retries` more times with the same body and Idempotency-Key, then HttpUnavailable.
 * - Anything else (4xx, a redirect): a definite answer, never retried: HttpRefused.
 *
 * Error messages name the provider, the status and the attempts only: never the URL's query,
 * the body, the token or the provider's answer text (which may echo personal data). They end up
 * in logs and in Temporal history.
 */
export interface HttpCall {
  /** Who is called, for messages and logs (e.g. `sms`, `identity`, `operator mock`). */
  provider: string;
  method: 'GET' | 'POST';
  url: string;
  token?: string;
  body?: unknown;
  idempotencyKey?: string;
}

export interface HttpPolicy {
  timeoutMs: number;
  /** Extra attempts after the first on a transient failure. */
  retries: number;
  /** First backoff; doubled per retry, with up to 50% jitter added. */
  backoffMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** A definite answer that is not a success (4xx, 3xx): retrying cannot help. */
export class HttpRefused extends Error {
  constructor(
    readonly provider: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${provider} refused the request (HTTP ${status})`);
    this.name = 'HttpRefused';
  }
}

export type TransientKind = 'timeout' | 'network' | 'status';

/** No usable answer after every attempt: timeouts, network failures, 408/425/429/5xx. */
export class HttpUnavailable extends Error {
  constructor(
    readonly provider: string,
    readonly kind: TransientKind,
    readonly attempts: number,
    readonly status?: number,
  ) {
    super(`${provider} unavailable: ${kind === 'status' ? `HTTP ${status}` : kind} after ${attempts} attempt${attempts === 1 ? '' : 's'}`);
    this.name = 'HttpUnavailable';
  }
}

const TRANSIENT_STATUSES = new Set([408, 425, 429]);

export function isTransientStatus(status: number): boolean {
  return status >= 500 || TRANSIENT_STATUSES.has(status);
}

/** `base` + `path`, keeping any path the base already has (`https://h/api` + `x` is `https://h/api/x`). */
export function joinUrl(base: string, path: string): string {
  return new URL(path.replace(/^\/+/, ''), base.endsWith('/') ? base : `${base}/`).toString();
}

type Attempt = { ok: true; answer: HttpAnswer } | { ok: false; kind: TransientKind; status?: number };

async function attempt(call: HttpCall, timeoutMs: number): Promise<Attempt> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  try {
    // One signal bounds the whole exchange, the body included.
    const res = await fetch(call.url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      // A redirect is a misconfiguration, not something to follow with the token attached.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (isTransientStatus(res.status)) return { ok: false, kind: 'status', status: res.status };
    return { ok: true, answer: { status: res.status, body: parseJson(text) } };
  } catch (err) {
    // AbortSignal.timeout rejects with a DOMException named TimeoutError (not always an `Error` of this realm).
    const timedOut = typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
    return { ok: false, kind: timedOut ? 'timeout' : 'network' };
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends `call`, retrying transient failures; resolves with a 2xx answer or throws HttpRefused / HttpUnavailable. */
export async function requestJson(call: HttpCall, policy: HttpPolicy): Promise<HttpAnswer> {
  const attempts = policy.retries + 1;
  const backoffMs = policy.backoffMs ?? 250;
  for (let n = 1; ; n += 1) {
    const result = await attempt(call, policy.timeoutMs);
    if (result.ok) {
      const { answer } = result;
      if (answer.status >= 200 && answer.status < 300) return answer;
      throw new HttpRefused(call.provider, answer.status, answer.body);
    }
    if (n >= attempts) throw new HttpUnavailable(call.provider, result.kind, n, result.status);
    const delay = backoffMs * 2 ** (n - 1);
    policy.logger?.warn(
      { provider: call.provider, attempt: n, failure: result.kind, status: result.status },
      'provider call failed, retrying',
    );
    await sleep(delay + Math.random() * delay * 0.5);
  }
}

/** A short, printable reason from a provider's refusal body (`{ reason }` or `{ error: { message } }`), if any. */
export function reasonOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as { reason?: unknown; message?: unknown; error?: unknown };
  const nested = typeof record.error === 'object' && record.error !== null ? (record.error as { message?: unknown }).message : record.error;
  const candidate = [record.reason, record.message, nested].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (candidate === undefined) return undefined;
  // The reason may be stored and shown (an activation's failedReason): no control characters, bounded.
  const printable = Array.from(candidate, (c) => (c < ' ' || c === '\x7f' ? ' ' : c)).join('');
  return printable.replace(/\s+/g, ' ').trim().slice(0, 200);
}
