// The codec endpoint the Temporal UI calls to show encrypted payloads (src/temporal/codec.ts) to an
// operator: POST {endpoint}/decode and {endpoint}/encode with `{ payloads: [{ metadata, data }] }`
// (proto JSON: every value base64) and an `X-Namespace` header. The operator signs in to the API in
// the same browser (super_admin, the `activation-sys-session` cookie) and the UI, configured to
// include cross-origin credentials, sends that cookie; CORS admits only TEMPORAL_CODEC_CORS_ORIGINS.
import type { Payload } from '@temporalio/common';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { parseOrigins, type CorsSpec } from '../http/cors';
import { validationError } from '../http/errors';
import { guard } from '../http/guards';
import { json, type Api, type HeaderSpec } from '../http/route';
import { z } from '../openapi/registry';
import { isEncrypted, payloadCodecFromConfig, type AesGcmPayloadCodec } from '../temporal/codec';

export const CODEC_PATH = '/temporal-codec';

/** Canonical (padded) base64, as proto JSON writes bytes. */
const BASE64 = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';
const Base64 = z
  .string()
  .regex(new RegExp(BASE64), 'Must be base64 (standard alphabet, padded)')
  .openapi({ description: 'base64 (standard alphabet, padded)', example: 'anNvbi9wbGFpbg==' });

export const CodecPayload = z
  .strictObject({
    metadata: z.record(z.string(), Base64).optional().openapi({ description: 'Metadata entries; each value base64' }),
    data: Base64.optional().openapi({ description: 'The payload bytes, base64' }),
  })
  .openapi('TemporalPayload', { description: 'A Temporal Payload in proto JSON form' });

export const CodecPayloads = z
  .strictObject({ payloads: z.array(CodecPayload).max(1000) })
  .openapi('TemporalPayloads', { description: 'Payloads in, payloads out: the same number, in the same order' });

/** The request: proto JSON leaves an empty list out (the CLI sends `{}` for a query without arguments). */
const CodecRequest = z
  .strictObject({ payloads: z.array(CodecPayload).max(1000).default([]) })
  .openapi('TemporalPayloadsRequest', { description: 'Payloads to convert; `payloads` left out means none' });

const NamespaceHeader = z.object({
  'X-Namespace': z.string().optional().openapi({ description: 'The namespace the Temporal UI shows (every namespace shares our keys)' }),
});

const CORS_HEADERS: HeaderSpec[] = [
  {
    name: 'Access-Control-Allow-Origin',
    schema: z.string(),
    required: false,
    description: 'An allowed origin (TEMPORAL_CODEC_CORS_ORIGINS)',
  },
  { name: 'Access-Control-Allow-Credentials', schema: z.literal('true'), required: false, description: 'With an allowed origin' },
];

const ACCESS = [
  'For the Temporal UI (its codec server setting) and tools: the operator signs in as super_admin (bearer, or the web session cookie',
  'in the same browser). Browsers on the origins of TEMPORAL_CODEC_CORS_ORIGINS may call it with credentials (CORS, preflight included).',
].join(' ');

type JsonPayload = z.infer<typeof CodecPayload>;

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? []).toString('base64'),
  };
}

/** Converts each payload; every one that fails is named (`payloads.<i>`) in one VALIDATION_ERROR. */
function convertAll(payloads: JsonPayload[], convert: (p: Payload) => Payload) {
  const failures: { path: string; message: string }[] = [];
  const converted = payloads.map((p, index) => {
    try {
      return toJson(convert(fromJson(p)));
    } catch (err) {
      failures.push({ path: `payloads.${index}`, message: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  });
  if (failures.length > 0) throw validationError(failures);
  return converted as ReturnType<typeof toJson>[];
}

export interface TemporalCodecDeps {
  config: Pick<Config, 'NODE_ENV' | 'TEMPORAL_PAYLOAD_KEYS' | 'TEMPORAL_CODEC_CORS_ORIGINS'>;
  logger: Logger;
  /** Default: from configuration (the same keys as the client and the worker). */
  codec?: AesGcmPayloadCodec;
}

export function temporalCodecRoutes(api: Api, deps: TemporalCodecDeps): void {
  const codec = deps.codec ?? payloadCodecFromConfig(deps.config);
  const cors: CorsSpec = {
    origins: parseOrigins(deps.config.TEMPORAL_CODEC_CORS_ORIGINS, 'TEMPORAL_CODEC_CORS_ORIGINS'),
    allowHeaders: ['Content-Type', 'X-Namespace'],
    maxAgeSeconds: 600,
  };
  const common = {
    method: 'post',
    tag: 'Temporal codec',
    guard: guard.superAdmin,
    // The UI sends one request per group of payloads (18 for one eSIM activation's history): the
    // per-IP limit of 100 per 15 minutes would lock an operator (and their other calls) out after
    // a few views. Only a signed-in super_admin gets past the guard, and every decode is logged.
    rateLimit: false,
    headers: NamespaceHeader,
    body: CodecRequest,
    // Temporal's own limit is 4 MB per request; base64 makes it 4/3 of that.
    bodyOptions: { limit: '6mb' },
    response: json(CodecPayloads, { description: 'The converted payloads', headers: CORS_HEADERS }),
    errors: [],
    cors,
  } as const;

  api.define(
    {
      ...common,
      path: `${CODEC_PATH}/decode`,
      summary: 'Decrypt Temporal payloads (codec server)',
      description: `${ACCESS} Payloads not encrypted by us come back unchanged. An encrypted payload whose key id is not configured, or that does not authenticate, is a VALIDATION_ERROR naming it (\`payloads.<i>\`).`,
    },
    ({ body, headers, principal }) => {
      let encrypted = 0;
      const payloads = convertAll(body.payloads, (p) => {
        if (isEncrypted(p)) encrypted += 1;
        return codec.decrypt(p);
      });
      // Who read personal data from Temporal: the operator, the namespace, how many payloads were encrypted.
      deps.logger.info(
        { userId: principal.user.id, namespace: headers['X-Namespace'], payloads: payloads.length, encrypted },
        'temporal payloads decoded',
      );
      return { payloads };
    },
  );

  api.define(
    {
      ...common,
      path: `${CODEC_PATH}/encode`,
      summary: 'Encrypt Temporal payloads (codec server)',
      description: `${ACCESS} The UI encodes what an operator types (a signal's input, say) with the current key, as our clients do.`,
    },
    ({ body }) => ({ payloads: convertAll(body.payloads, (p) => codec.encrypt(p)) }),
  );
}
