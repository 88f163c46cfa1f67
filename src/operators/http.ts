import type { Logger } from 'pino';
import type { SimType } from '../entities';
import { HttpRefused, HttpUnavailable, joinUrl, reasonOf, requestJson, type HttpCall } from '../providers/http';
import { type OperatorEndpoint } from '../lib/operator-endpoints';
import { OperatorRejection, OperatorTimeout, OperatorUnavailable, type IssuedEsim, type OperatorPlugin, type SerialCheck } from './plugin';

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
