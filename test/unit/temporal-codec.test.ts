// The Temporal payload codec on its own: round trip, key rotation, refusals.
import { randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  DEV_PAYLOAD_KEYS,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  PayloadKeyError,
  parsePayloadKeys,
  payloadCodecFromConfig,
  type PayloadKey,
} from '../../src/temporal/codec';

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const spec = (...keys: PayloadKey[]) => keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

const ID_NUMBER = '1098765430';
const plain = (): Payload => defaultPayloadConverter.toPayload({ identityType: 'citizen', idNumber: ID_NUMBER, email: 'sara@example.com' });

describe('AES-256-GCM payload codec', () => {
  const k1 = key('k1');
  const codec = new AesGcmPayloadCodec([k1]);

  it('round-trips payloads (metadata and data) and leaves nothing readable in the encrypted form', async () => {
    const originals = [plain(), defaultPayloadConverter.toPayload(undefined), defaultPayloadConverter.toPayload(new Uint8Array([0, 1, 2]))];
    const encoded = await codec.encode(originals);

    expect(encoded).toHaveLength(3);
    for (const payload of encoded) {
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual([METADATA_ENCODING_KEY, KEY_ID_METADATA_KEY].sort());
      expect(text(payload.metadata?.[METADATA_ENCODING_KEY])).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.metadata?.[KEY_ID_METADATA_KEY])).toBe('k1');
    }
    expect(Buffer.from(encoded[0].data!).includes(ID_NUMBER)).toBe(false);
    expect(Buffer.from(encoded[0].data!).includes('json/plain')).toBe(false); // the original encoding is inside too

    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { identityType: 'citizen', idNumber: ID_NUMBER, email: 'sara@example.com' },
      undefined,
      new Uint8Array([0, 1, 2]),
    ]);
  });

  it('uses a fresh IV for every payload: the same value encrypts differently each time', async () => {
    const [a, b] = await codec.encode([plain(), plain()]);
    expect(Buffer.from(a.data!).subarray(0, 12).equals(Buffer.from(b.data!).subarray(0, 12))).toBe(false);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  it('rotates: the new first key encrypts, the old one still decrypts what it wrote', async () => {
    const k2 = key('k2');
    const before = await codec.encode([plain()]);
    const rotated = new AesGcmPayloadCodec([k2, k1]);

    expect(defaultPayloadConverter.fromPayload((await rotated.decode(before))[0])).toMatchObject({ idNumber: ID_NUMBER });
    const after = await rotated.encode([plain()]);
    expect(text(after[0].metadata?.[KEY_ID_METADATA_KEY])).toBe('k2');
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(after))[0])).toMatchObject({ idNumber: ID_NUMBER });
    // A process that was not given the new key cannot read it, and says which key it lacks.
    await expect(codec.decode(after)).rejects.toThrow(/key id "k2".*known: k1/);
  });

  it('fails loudly on an unknown key id', async () => {
    const [payload] = await new AesGcmPayloadCodec([key('gone')]).encode([plain()]);
    const error = await codec.decode([payload]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueError);
    expect((error as Error).message).toMatch(/key id "gone", which TEMPORAL_PAYLOAD_KEYS does not hold/);
  });

  it('fails loudly on a tampered ciphertext, tag or IV, a truncated payload, or a missing key id', async () => {
    const [payload] = await codec.encode([plain()]);
    const sealed = Buffer.from(payload.data!);
    const flip = (at: number) => {
      const copy = Buffer.from(sealed);
      copy[at] ^= 0x01;
      return { ...payload, data: copy };
    };
    for (const altered of [flip(0), flip(20), flip(sealed.length - 1)]) {
      await expect(codec.decode([altered])).rejects.toThrow(/does not authenticate/);
    }
    await expect(codec.decode([{ ...payload, data: sealed.subarray(0, 20) }])).rejects.toThrow(/truncated/);
    await expect(codec.decode([{ ...payload, metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING) } }])).rejects.toThrow(
      /without "encryption-key-id"/,
    );
    // Another key under the same id (a key replaced instead of rotated) does not authenticate either.
    await expect(new AesGcmPayloadCodec([key('k1')]).decode([payload])).rejects.toThrow(/does not authenticate/);
  });

  it('passes payloads it did not encrypt through unchanged (histories from before the codec, CLI input)', async () => {
    const original = plain();
    expect(await codec.decode([original])).toEqual([original]);
  });
});

describe('TEMPORAL_PAYLOAD_KEYS', () => {
  it('parses `id:base64` entries in order (the first encrypts)', () => {
    const [a, b] = [key('2026-07'), key('old_key.1')];
    expect(parsePayloadKeys(` ${spec(a)} , ${spec(b)} `)).toEqual([a, b]);
  });

  it('names every malformed entry without printing key material', () => {
    const short = randomBytes(16).toString('base64');
    const good = key('ok');
    const attempt = () =>
      parsePayloadKeys(`nocolon,${spec(good)},ok:${good.key.toString('base64')},bad id:${short},short:${short},url:${'-'.repeat(43)}=`);
    expect(attempt).toThrow(PayloadKeyError);
    let message = '';
    try {
      attempt();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/entry 1: expected keyId:base64/);
    expect(message).toMatch(/entry 3 \("ok"\): duplicate key id/);
    expect(message).toMatch(/entry 4: expected keyId:base64/);
    expect(message).toMatch(/entry 5 \("short"\): the key must be base64 of exactly 32 bytes/);
    expect(message).toMatch(/entry 6 \("url"\): the key must be base64 of exactly 32 bytes/);
    expect(message).not.toContain(short);
    expect(message).not.toContain(good.key.toString('base64'));
  });

  it('unset: the development key, refused in production', () => {
    expect(payloadCodecFromConfig({ NODE_ENV: 'development', TEMPORAL_PAYLOAD_KEYS: undefined }).encryptionKeyId).toBe('dev');
    expect(() => payloadCodecFromConfig({ NODE_ENV: 'production', TEMPORAL_PAYLOAD_KEYS: undefined })).toThrow(
      /development key is refused/,
    );
    expect(() =>
      payloadCodecFromConfig({ NODE_ENV: 'production', TEMPORAL_PAYLOAD_KEYS: `${spec(key('new'))},${DEV_PAYLOAD_KEYS}` }),
    ).toThrow(/development key is refused/);
    expect(payloadCodecFromConfig({ NODE_ENV: 'production', TEMPORAL_PAYLOAD_KEYS: spec(key('prod')) }).encryptionKeyId).toBe('prod');
  });
});
