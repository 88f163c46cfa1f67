import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { IDENTITY_STATUSES, type IdentityStatus } from '../entities/activation';
import { HttpRefused, HttpUnavailable, joinUrl, requestJson } from '../providers/http';
import { IdentityInitiationError, IdentityProviderUnavailable, type IdentityProvider } from './provider';

export interface HttpIdentityOptions {
  /** Base URL; the adapter calls `{url}/verifications`. */
  url: string;
  token?: string;
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

const STATUSES = new Set<string>(IDENTITY_STATUSES);

/**
 * National identity verification over HTTP. The contract (docs/configuration.md, Real adapters):
 *
 *   POST {IDENTITY_HTTP_URL}/verifications            Authorization: Bearer {IDENTITY_HTTP_TOKEN}
 *   Idempotency-Key: <one key per initiation>
 *   { "idNumber": "1…", "identityType": "citizen|resident|visitor", "reference": "<activation id>" }
 *   2xx { "transactionId": "…", "randomCode": "42" }
 *   4xx                 a definite refusal: IdentityInitiationError (IDENTITY_ERROR), not retried
 *   408/425/429/5xx, timeout, bad 2xx body: retried here, then IdentityProviderUnavailable
 *
 *   GET {IDENTITY_HTTP_URL}/verifications/{transactionId}
 *   2xx { "status": "waiting|completed|rejected|expired|error" }
 *   4xx (404: unknown transaction)  final: `error`, the person may start again
 *   transient failures              `waiting` once the retries are spent: the workflow polls again,
 *                                   and the request's lifetime (IDENTITY_REQUEST_TTL_SECONDS) ends it
 *
 * `reference` is the activation id, for the provider's records. It is not the idempotency key:
 * an activation may start verification again after `rejected` or `expired`, and a provider that
 * deduplicates by it would hand back the finished transaction. The key is the caller's (the activity's:
 * one per initiation, the same on an attempt retried after a lost worker), else fresh per initiate(), and
 * the same across this adapter's retries, so a lost answer does not start a second one.
 *
 * The id number travels in the request body only: never in a URL, a log line or an error message.
 */
export function createHttpIdentityProvider(options: HttpIdentityOptions): IdentityProvider {
  const policy = { timeoutMs: options.timeoutMs, retries: options.retries, backoffMs: options.backoffMs, logger: options.logger };
  const verifications = joinUrl(options.url, 'verifications');

  return {
    async initiate({ idNumber, identityType, reference, idempotencyKey }) {
      let body: unknown;
      try {
        ({ body } = await requestJson(
          {
            provider: 'identity provider',
            method: 'POST',
            url: verifications,
            token: options.token,
            idempotencyKey: idempotencyKey ?? randomUUID(),
            body: { idNumber, identityType, reference },
          },
          policy,
        ));
      } catch (err) {
        if (err instanceof HttpRefused)
          throw new IdentityInitiationError(`identity provider refused the verification (HTTP ${err.status})`);
        if (err instanceof HttpUnavailable) throw new IdentityProviderUnavailable(err.message);
        throw err;
      }
      const started = body as { transactionId?: unknown; randomCode?: unknown } | undefined;
      const transId = started?.transactionId;
      const randomCode = started?.randomCode;
      // identity_ref is varchar(255).
      if (
        typeof transId !== 'string' ||
        transId === '' ||
        transId.length > 255 ||
        (typeof randomCode !== 'string' && typeof randomCode !== 'number')
      ) {
        throw new IdentityProviderUnavailable('identity provider answered without a transactionId and randomCode');
      }
      return { transId, randomCode: String(randomCode) };
    },

    async status(transId) {
      let body: unknown;
      try {
        ({ body } = await requestJson(
          {
            provider: 'identity provider',
            method: 'GET',
            url: joinUrl(verifications, encodeURIComponent(transId)),
            token: options.token,
          },
          policy,
        ));
      } catch (err) {
        if (err instanceof HttpRefused) {
          options.logger?.error({ status: err.status }, 'identity provider refused a status request: verification ends in error');
          return 'error';
        }
        if (err instanceof HttpUnavailable) {
          options.logger?.warn({ failure: err.kind, status: err.status }, 'identity provider unavailable: status stays waiting');
          return 'waiting';
        }
        throw err;
      }
      const status = (body as { status?: unknown } | undefined)?.status;
      if (typeof status === 'string' && STATUSES.has(status)) return status as IdentityStatus;
      options.logger?.warn({}, 'identity provider answered an unknown status: status stays waiting');
      return 'waiting';
    },
  };
}
