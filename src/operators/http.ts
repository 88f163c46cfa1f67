import type { Logger } from 'pino';
import type { SimType } from '../entities';
import { HttpRefused, HttpUnavailable, joinUrl, reasonOf, requestJson, type HttpCall } from '../providers/http';
import { OperatorRejection, OperatorTimeout, OperatorUnavailable, type IssuedEsim, type OperatorPlugin, type SerialCheck } from './plugin';

export interface OperatorEndpoint {
  slug: string;
  baseUrl: string;
  supportsEsim: boolean;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * OPERATOR_HTTP_ENDPOINTS: comma-separated `slug=https://base`, with `:esim` after the slug for
 * an operator that issues eSIM profiles (`stc:esim=https://ops.example/api,zain=https://z.example`).
 * eSIM support is configuration, not a call: the API answers it synchronously (GET /operators,
 * ACTIVATION_ESIM_UNSUPPORTED_OPERATOR), and start-up must not depend on every operator answering.
 * Throws an Error naming the first bad entry.
 */
export function parseOperatorEndpoints(value: string): OperatorEndpoint[] {
  const endpoints: OperatorEndpoint[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const [slug, flag, ...rest] = (eq > 0 ? entry.slice(0, eq) : '').split(':');
    const baseUrl = entry.slice(eq + 1).trim();
    if (!slug || !SLUG.test(slug) || rest.length > 0 || (flag !== undefined && flag !== 'esim')) {
      throw new Error(`"${entry}": expected slug=https://base or slug:esim=https://base (slug: lowercase letters, digits, -)`);
    }
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol))
      throw new Error(`"${entry}": the base must be an http(s) URL`);
    if (endpoints.some((e) => e.slug === slug)) throw new Error(`"${slug}" is listed twice`);
    endpoints.push({ slug, baseUrl, supportsEsim: flag === 'esim' });
  }
  if (endpoints.length === 0) throw new Error('lists no operator');
  return endpoints;
}

export interface HttpOperatorOptions extends OperatorEndpoint {
  token?: string;
  timeoutMs: number;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * A telecom operator over HTTP. The contract (docs/configuration.md, Real adapters), every call with
 * `Authorization: Bearer {OPERATOR_HTTP_TOKEN}` and JSON bodies:
 *
 *   POST {base}/validate        { "serial": "8996…" | "LPA:1$…", "simType": "physical|esim" }
 *        2xx { "valid": true } | { "valid": false, "reason": "…" }
 *   POST {base}/activations     Idempotency-Key: {activationId}
 *        { "activationId": "<uuid>", "iccid": "8996…" }           2xx: the SIM is active
 *   POST {base}/esim-profiles   Idempotency-Key: {activationId}
 *        { "activationId": "<uuid>", "activationCode": "LPA:1$…" }
 *        2xx { "activationCode": "LPA:1$…", "iccid": "8997…" (optional) }
 *
 * The same Idempotency-Key again must answer what the first call answered, without a second
 * activation. 4xx: a definite refusal (OperatorRejection, its `reason` or `error.message` as the
 * reason: validation answers it as `valid: false`, a handoff fails the activation). No answer
 * within OPERATOR_HTTP_TIMEOUT_MS: OperatorTimeout. 408/425/429/5xx, a network failure or a 2xx
 * without the fields above: OperatorUnavailable. The adapter does not retry: a handoff is retried
 * by its activity (with backoff, until the operator recovers), a validation answers 502/504 and the
 * client asks again.
 */
export function createHttpOperator(options: HttpOperatorOptions): OperatorPlugin {
  const policy = { timeoutMs: options.timeoutMs, retries: 0, logger: options.logger };
  const provider = `operator ${options.slug}`;

  async function call(path: string, body: unknown, idempotencyKey?: string): Promise<Record<string, unknown>> {
    const request: HttpCall = { provider, method: 'POST', url: joinUrl(options.baseUrl, path), token: options.token, body, idempotencyKey };
    try {
      const answer = await requestJson(request, policy);
      return typeof answer.body === 'object' && answer.body !== null ? (answer.body as Record<string, unknown>) : {};
    } catch (err) {
      if (err instanceof HttpRefused) throw new OperatorRejection(reasonOf(err.body) ?? `Refused by the operator (HTTP ${err.status})`);
      if (err instanceof HttpUnavailable)
        throw err.kind === 'timeout' ? new OperatorTimeout(err.message) : new OperatorUnavailable(err.message);
      throw err;
    }
  }

  return {
    slug: options.slug,
    supportsEsim: options.supportsEsim,

    async validateSerial(serial: string, simType: SimType): Promise<SerialCheck> {
      const answer = await call('validate', { serial, simType });
      if (answer.valid === true) return { valid: true };
      if (answer.valid === false) return { valid: false, reason: reasonOf(answer) ?? 'Refused by the operator' };
      throw new OperatorUnavailable(`${provider} answered validate without "valid"`);
    },

    async activateSim({ iccid, idempotencyKey }) {
      await call('activations', { activationId: idempotencyKey, iccid }, idempotencyKey);
    },

    async issueEsim({ activationCode, idempotencyKey }): Promise<IssuedEsim> {
      const answer = await call('esim-profiles', { activationId: idempotencyKey, activationCode }, idempotencyKey);
      const code = answer.activationCode;
      const iccid = answer.iccid;
      if (
        typeof code !== 'string' ||
        (iccid !== undefined && iccid !== null && (typeof iccid !== 'string' || !/^\d{18,22}$/.test(iccid)))
      ) {
        throw new OperatorUnavailable(`${provider} answered esim-profiles without a valid activationCode and iccid`);
      }
      return typeof iccid === 'string' ? { activationCode: code, iccid } : { activationCode: code };
    },
  };
}

/** One plugin per configured operator. */
export function createHttpOperators(
  endpoints: OperatorEndpoint[],
  options: Omit<HttpOperatorOptions, keyof OperatorEndpoint>,
): OperatorPlugin[] {
  return endpoints.map((endpoint) => createHttpOperator({ ...endpoint, ...options }));
}
