import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Personal data at rest: AES-256-GCM with a random 96-bit IV per value.
 * Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url) so the key can rotate later.
 * Lookups and uniqueness use a keyed hash (HMAC-SHA256), never the ciphertext.
 */
export interface PersonalDataCipher {
  encrypt(plain: string): string;
  decrypt(stored: string): string;
  /** Deterministic keyed hash for lookups and unique indexes. */
  lookupHash(value: string): string;
  /** Drops a stored value's decrypted text from this process's memory (an erasure removed the value). */
  forget(stored: string): void;
  /** Drops every decrypted text this process keeps (another process erased someone: src/compliance/forget.ts). */
  forgetAll(): void;
}

/** Decrypted values a cipher keeps (ciphertext to text), then starts again. */
const DECRYPTED_KEPT = 20_000;

export function createPersonalDataCipher(encryptionKeyBase64: string, hashKey: string): PersonalDataCipher {
  const raw = Buffer.from(encryptionKeyBase64, 'base64');
  if (raw.length !== 32) throw new Error('encryption key must be 32 bytes');
  // Key objects are prepared once; building them per call costs more than the cipher itself.
  const key = createSecretKey(raw);
  const hmacKey = createSecretKey(Buffer.from(hashKey, 'utf8'));
  const decrypted = new Map<string, string>();
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    decrypt(stored) {
      // A stored value always decrypts to the same text (its IV and tag are part of it): lists that show
      // the same people page after page decrypt each value once, not once per row per request.
      const known = decrypted.get(stored);
      if (known !== undefined) return known;
      const [version, iv, tag, body] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown ciphertext format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      if (decrypted.size >= DECRYPTED_KEPT) decrypted.clear();
      decrypted.set(stored, text);
      return text;
    },
    lookupHash(value) {
      return createHmac('sha256', hmacKey).update(value).digest('hex');
    },
    forget(stored) {
      decrypted.delete(stored);
    },
    forgetAll() {
      decrypted.clear();
    },
  };
}

/** SHA-256 in hex; one-shot (no Hash object), as every signed-in request hashes its token. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of two hex or text digests of any length. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
