import { readFileSync } from 'node:fs';
import path from 'node:path';
import { clientTypeOf } from '../../src/auth/client-type';
import { CONFIG_KEYS, loadConfig } from '../../src/config';
import { languageOf } from '../../src/http/errors';
import { createPersonalDataCipher, safeEqual } from '../../src/lib/crypto';
import { errorCodes } from '../../src/http/error-codes';
import { successMessages } from '../../src/http/messages';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { productionEnv } from '../helpers/production-env';

describe('configuration', () => {
  it('has development defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, RATE_LIMIT_MAX: 100, RATE_LIMIT_WINDOW_SECONDS: 900, OTP_TTL_SECONDS: 300 });
  });

  it('stops production start-up when a secret is missing, naming it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /JWT_SECRET[\s\S]*DATA_HASH_KEY[\s\S]*DATA_ENCRYPTION_KEY[\s\S]*DATABASE_URL/,
    );
  });

  it('accepts production with every secret set and real providers', () => {
    expect(loadConfig(productionEnv()).NODE_ENV).toBe('production');
  });

  it('reads an empty value as unset (KEY= in a .env file)', () => {
    expect(loadConfig({ JWT_SECRET: '', PAYMENT_SETTLEMENT_LINGER_SECONDS: '' }).PAYMENT_SETTLEMENT_LINGER_SECONDS).toBe(60);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: '' })).toThrow(/JWT_SECRET: must be set in production/);
  });

  it('.env.example lists every variable, and nothing else', () => {
    const example = readFileSync(path.join(__dirname, '../../.env.example'), 'utf8');
    const listed = [...example.matchAll(/^(?:# )?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual([...CONFIG_KEYS].sort());
    // As shipped, it loads (development defaults for everything left empty).
    const values = Object.fromEntries([...example.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    expect(() => loadConfig(values)).not.toThrow();
  });

  it('rejects a key of the wrong size', () => {
    expect(() => loadConfig({ DATA_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/DATA_ENCRYPTION_KEY/);
  });
});

describe('personal data cipher', () => {
  const cipher = createPersonalDataCipher(Buffer.alloc(32, 3).toString('base64'), 'k'.repeat(32));

  it('round-trips and never repeats a ciphertext', () => {
    const a = cipher.encrypt('+966500000001');
    const b = cipher.encrypt('+966500000001');
    expect(a).not.toBe(b);
    expect(a).not.toContain('966500000001');
    expect(cipher.decrypt(a)).toBe('+966500000001');
  });

  it('detects tampering', () => {
    const stored = cipher.encrypt('sara@example.com');
    const parts = stored.split('.');
    // Flip one bit of the ciphertext: replacing its first byte with a fixed one left it unchanged 1 time in 256.
    const ciphertext = Buffer.from(parts[3], 'base64url');
    ciphertext[0] ^= 0x01;
    parts[3] = ciphertext.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow();
  });

  it('hashes deterministically with its key', () => {
    const other = createPersonalDataCipher(Buffer.alloc(32, 3).toString('base64'), 'z'.repeat(32));
    expect(cipher.lookupHash('a')).toBe(cipher.lookupHash('a'));
    expect(cipher.lookupHash('a')).not.toBe(other.lookupHash('a'));
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('client type and language', () => {
  it.each([
    [{ 'x-client-type': 'mobile' }, 'mobile'],
    [{ 'x-client-type': 'WEB', 'user-agent': 'okhttp/4' }, 'web'],
    [{ 'user-agent': 'okhttp/4.12.0' }, 'mobile'],
    [{ 'user-agent': 'Dart/3.5 (dart:io)' }, 'mobile'],
    [{ 'user-agent': 'ActivationSys/2.1 CFNetwork/1490 Darwin/23' }, 'mobile'],
    [{ 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari' }, 'web'],
    [{}, 'web'],
  ])('%j is %s', (headers, expected) => {
    expect(clientTypeOf(headers)).toBe(expected);
  });

  it('reads Accept-Language', () => {
    expect(languageOf('ar')).toBe('ar');
    expect(languageOf('ar-SA,en;q=0.5')).toBe('ar');
    expect(languageOf('en-US,ar;q=0.5')).toBe('en');
    expect(languageOf(undefined)).toBe('en');
  });

  it.each([
    ['en;q=0.1, ar', 'ar'],
    ['fr', 'en'],
    ['ar-SA', 'ar'],
    ['AR', 'ar'],
    ['fr, ar;q=0.5', 'ar'],
    ['ar;q=0, en', 'en'],
    ['ar;q=0', 'en'],
    ['*', 'en'],
    ['', 'en'],
  ])('negotiates Accept-Language %j with q-values: %s', (header, expected) => {
    expect(languageOf(header)).toBe(expected);
  });

  it('has both languages for every success message', () => {
    for (const [key, def] of Object.entries(successMessages)) {
      expect([key, def.en.length > 0, /[\u0600-\u06FF]/.test(def.ar)]).toEqual([key, true, true]);
    }
  });

  it('has both languages for every error code', () => {
    for (const [code, def] of Object.entries(errorCodes)) {
      expect([code, def.en.length > 0, /[\u0600-\u06FF]/.test(def.ar)]).toEqual([code, true, true]);
    }
  });
});

describe('local stack', () => {
  // The search attributes are registered by temporal-init, as compose's one-shot does (test/unit/compose.test.ts
  // checks the code and the init agree).
  it('registers every search attribute the code sets, with the init command', () => {
    const stack = readFileSync(path.join(__dirname, '../../scripts/stack.sh'), 'utf8');
    expect(stack).toContain('node dist/src/cli/temporal-init.js');
    expect(Object.keys(SEARCH_ATTRIBUTES).length).toBeGreaterThan(0);
  });
});
