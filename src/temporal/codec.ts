// The Temporal payload codec: every payload our clients and workers write (workflow inputs and
// results, update and signal arguments and results, activity inputs and results, query results,
// heartbeat details, failure messages through ./failure-converter) is encrypted with AES-256-GCM
// before it leaves the process, so workflow history never holds national id numbers, phones or
// e-mails in clear text. Search attributes are not payload-codec'd by Temporal (the server must
// index them): ours hold only ids and statuses (src/temporal/search-attributes.ts).
//
// Format (as Temporal's encryption sample): the whole Payload proto (metadata + data) is encrypted;
// the stored payload has `encoding: binary/encrypted`, `encryption-key-id: <id>` and
// data = IV (12 random bytes) || ciphertext || GCM tag (16 bytes).
//
// Keys: TEMPORAL_PAYLOAD_KEYS = `id:base64-of-32-bytes,id2:…`; the first encrypts, every one
// decrypts, so keys rotate without losing old histories. Payloads that are not encrypted (written
// before the codec, or by an operator's CLI) are passed through on decode; an encrypted payload
// whose key id is unknown, or whose ciphertext does not authenticate, fails loudly.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Config } from '../config';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA_KEY = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Canonical base64 (padded), the form Buffer#toString('base64') writes. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const ProtoPayload = temporal.api.common.v1.Payload;

export interface PayloadKey {
  readonly id: string;
  /** 32 bytes. */
  readonly key: Buffer;
}

/**
 * The development key: derived from a public constant, so it protects nothing. It exists so that a
 * machine without configuration runs the same code path; production refuses an unset
 * TEMPORAL_PAYLOAD_KEYS (src/config.ts) and payloadCodecFromConfig refuses this key there too.
 */
export const DEV_PAYLOAD_KEYS = `dev:${createHash('sha256').update('activation-sys development Temporal payload key (not a secret)').digest('base64')}`;

export class PayloadKeyError extends Error {}

/**
 * Parses `id:base64,id2:base64`. Every problem is named (never the key material) in one error:
 * an id of 1-64 letters, digits, `.`, `_` or `-`, unique; base64 of exactly 32 bytes.
 */
export function parsePayloadKeys(value: string): PayloadKey[] {
  const problems: string[] = [];
  const keys: PayloadKey[] = [];
  value.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    const material = colon < 0 ? '' : entry.slice(colon + 1);
    const where = `entry ${index + 1}${KEY_ID.test(id) ? ` ("${id}")` : ''}`;
    if (!KEY_ID.test(id)) return problems.push(`${where}: expected keyId:base64 with a key id of 1-64 letters, digits, ".", "_" or "-"`);
    if (keys.some((k) => k.id === id)) return problems.push(`${where}: duplicate key id`);
    const key = Buffer.from(material, 'base64');
    if (!BASE64.test(material) || key.length !== KEY_BYTES) return problems.push(`${where}: the key must be base64 of exactly 32 bytes`);
    keys.push({ id, key });
  });
  if (problems.length > 0) throw new PayloadKeyError(`TEMPORAL_PAYLOAD_KEYS: ${problems.join('; ')}`);
  return keys;
}

/** AES-256-GCM payload codec with key ids (see the file comment for the format). */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: ReadonlyMap<string, Buffer>;
  /** The key new payloads are encrypted with (the first configured). */
  readonly encryptionKeyId: string;
  private readonly encryptionKey: Buffer;

  constructor(keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new PayloadKeyError('at least one payload key is needed');
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    if (this.keys.size !== keys.length) throw new PayloadKeyError('payload key ids must be unique');
    for (const { id, key } of keys) if (key.length !== KEY_BYTES) throw new PayloadKeyError(`payload key "${id}" must be 32 bytes`);
    this.encryptionKeyId = keys[0].id;
    this.encryptionKey = keys[0].key;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((p) => this.encrypt(p))));
  }

  /** Rejects (ValueError) when an encrypted payload names an unknown key or does not authenticate. */
  decode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((p) => this.decrypt(p))));
  }

  encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.encryptionKey, iv, { authTagLength: TAG_BYTES });
    const sealed = Buffer.concat([iv, cipher.update(ProtoPayload.encode(payload).finish()), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA_KEY]: Buffer.from(this.encryptionKeyId),
      },
      data: sealed,
    };
  }

  /** The original payload; one that is not ours to decrypt (another encoding) comes back as it is. */
  decrypt(payload: Payload): Payload {
    if (!isEncrypted(payload)) return payload;
    const keyId = text(payload.metadata?.[KEY_ID_METADATA_KEY]);
    if (!keyId) throw new ValueError(`encrypted payload without "${KEY_ID_METADATA_KEY}" metadata`);
    const key = this.keys.get(keyId);
    if (!key) {
      throw new ValueError(
        `encrypted payload names key id "${keyId}", which TEMPORAL_PAYLOAD_KEYS does not hold (known: ${[...this.keys.keys()].join(', ')})`,
      );
    }
    const sealed = Buffer.from(payload.data ?? []);
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new ValueError(`encrypted payload (key id "${keyId}") is truncated`);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(CIPHER, key, sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new ValueError(
        `encrypted payload (key id "${keyId}") does not authenticate: altered, or encrypted with another key of that id`,
      );
    }
    return ProtoPayload.decode(plain);
  }
}

/** Whether the payload carries our encoding (`binary/encrypted`). */
export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;
}

function text(bytes: Uint8Array | null | undefined): string | undefined {
  return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
}

/**
 * The codec from configuration: TEMPORAL_PAYLOAD_KEYS, or the development key when unset. Production
 * never runs on the development key (start-up also refuses an unset value: src/config.ts).
 */
export function payloadCodecFromConfig(config: Pick<Config, 'NODE_ENV' | 'TEMPORAL_PAYLOAD_KEYS'>): AesGcmPayloadCodec {
  const value = config.TEMPORAL_PAYLOAD_KEYS ?? DEV_PAYLOAD_KEYS;
  const keys = parsePayloadKeys(value);
  if (config.NODE_ENV === 'production' && keys.some((k) => `${k.id}:${k.key.toString('base64')}` === DEV_PAYLOAD_KEYS)) {
    throw new PayloadKeyError('TEMPORAL_PAYLOAD_KEYS: the development key is refused in production');
  }
  return new AesGcmPayloadCodec(keys);
}

/** Loaded by the client, the worker and the workflow bundle (see ./failure-converter). */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/** The data converter of every Temporal client and worker of ours: payloads and failure messages through the codec. */
export function temporalDataConverter(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
}

export function dataConverterFromConfig(config: Pick<Config, 'NODE_ENV' | 'TEMPORAL_PAYLOAD_KEYS'>): DataConverter {
  return temporalDataConverter(payloadCodecFromConfig(config));
}
