import { sign } from 'node:crypto';
import type { Logger } from 'pino';

/**
 * The mock store's completion callbacks, as a wholesale partner sends them: a signed POST to our
 * POST /webhooks/esim-provider (the API), `MOCK_STORE_CALLBACK_DELAY` after a pending placement, so the
 * whole asynchronous path (webhook, receipt, signal, read-only reconciliation) runs locally. Signed with
 * the development key pair, whose public half is ESIM_PROVIDER_PUBLIC_KEY's default (src/config.ts):
 * production refuses both that key and the mock store, so this key signs nothing there.
 */
export const DEV_ESIM_PROVIDER_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDQQS9kS94G8N9E
UQ/zMWxzFKcYcpbKdm8icWWsR7+ozWPYudCofJXeDsmfyvRc096bC8gesiuSaEZe
PvNBgFarFKj/i2qPudy9X755UtcL7H3RnYuKAGE0SEp1I6/DEN1EiFX6suEl2e+S
5klULFHzszxczQ87WGNyUl3GoeUb14ZZJxDgrrp+g4RCs6xaYfc1btf/Vl5tNyjF
bk4iKot29rgiDDpcrywC8EUh0TsrlVbW+LpDeOhglsuh29Sixb8KAu03+rNHi6VZ
ihn6q6gOrVc/jfJoljuuvne9gOn2HYMaktkh47A4/U6M+UqEWP4h9Bf/A180Pk3N
m1xFTecrAgMBAAECggEAZXvGfPEtpqM9obyA8cldaG0hilvY2JvDR30MB1rFbpx8
MhJGuLxRie8Z2OkdkJjciyDAKhk3+3YeCHJTt1EzqtX8Dt+hE54GkDA2kUfJrLFX
lMzZwWuy8rfhtNipn3y53tozT+JYrknYIfVfuYmJfCEVYsG40PofKAg0U4X0ME7C
P48wXOd6BQYF3863/0QCXIlKK9iLkZsY5jbGJoOm71UQjlYTJw0INBI1NQiZ6YDg
GYwlzhNhxfxpzRRFhyZxkslbXHnRJ/WLIUrEPkdcMuSz3KyqxOLF41uRlVVrYpJR
UNXZaE2aRUXWjwmcbl95looDRhcjPcQ1Hjccz9rniQKBgQD+QnpZI076XrF6MVOa
FJK2z9X1HkfFz5Mm1tE1awflTA1w5rD2DuyXGJjQ/ckehtxV5MQFKQ6kilBwT4Sy
oZO6uSJVDWuP+GZ6lzmwf/e1LNgQAGLy3A0VwqCRmagKym1rd4Ej3gIe6ljBoozm
FqS9vMTrEhT4pThGHTSBXP510wKBgQDRrhh8+36cwhP+ugqOJILuW5J1t6lAcZBZ
NvzmVUVOZ9UG5qfHWtQbP8elZYTocGN2DA8oeW4eKtVINCn1VSiBEtrUbFQGCGlG
AaUFBxGSGqWKoioHXTKM01LtvnAaI8ZIAPVKK+KrUNilrYd6ccC9moV0yYu1yu1F
E1QHj3G6SQKBgGrpPxLeIuZqDMxpk1K1ld9i0v+HpPxLRP/O0hdZEu/ao8g2aHB+
ZANAp3kxTXEVme5QDBBzbCHJuvsOpKiMAldAY2xKAVF/TG/9yJcrp9e5rHxF/VVL
LAFbXjL63krzRUEr9dREFLY1Ke75z68sFEdn6ZFCgCjxKBFrVFmU5bZbAoGBAKno
e2t7l+OK2Q0G0FrSd06S4aGGTB4uaBwDFPfIjTq1pMfMzJQco9fY3PzHwOVhfRdB
Ol8/1t2XM/EoY/+rHAFLuAt+JLAmzLevyXrDeZd9BDvMoGYLPVUkQQTp1ok4CAp8
zEdoPGs6PfQzI58y4k5CEnbKgu2zHIVm3iaqNCwRAoGBAPQWUvqHLjmJaUSnvZph
gooOZuE9hBR+ZdaHgnWEfr2ZG8xZY05tue/72ZyguY5DCX+Z3BG587kcmXa9JjnA
mcSXEi+xWfW+kFQsQTRbFk9/aYvAZy1PB9DvjMFGbC6G56g4FqfHqiUNVqbkbZLc
zmRI95y3/GXp+lGgVNxJengL
-----END PRIVATE KEY-----`;

export interface MockCallbackOptions {
  /** The API's POST /webhooks/esim-provider. */
  url: string;
  merchantId: string;
  logger: Pick<Logger, 'info' | 'warn'>;
  privateKey?: string;
  /** Deliveries tried before giving up (the API may be restarting); default 5, a second apart. */
  attempts?: number;
}

/** The body the mock sends: orderId, merchantId and providerName signed; never a credential (the receiver reads the order back). */
export function mockCallbackBody(
  f: { orderId: string; merchantId: string; providerName: string; reason: string },
  privateKey = DEV_ESIM_PROVIDER_PRIVATE_KEY,
) {
  const signed = `${f.orderId}.${f.merchantId}.${f.providerName}`;
  const signature = sign('sha256', Buffer.from(signed, 'utf8'), privateKey).toString('base64');
  return { orderId: f.orderId, merchantId: f.merchantId, providerName: f.providerName, status: 'completed', reason: f.reason, signature };
}

/** The mock plugins' `onPending` hook: after `delayMs`, POST the signed callback (retried on failure, then logged). */
export function mockCallbackSender(opts: MockCallbackOptions) {
  const attempts = opts.attempts ?? 5;
  return (orderId: string, delayMs: number, providerSlug: string, reason: string): void => {
    const body = JSON.stringify(
      mockCallbackBody({ orderId, merchantId: opts.merchantId, providerName: providerSlug, reason }, opts.privateKey),
    );
    const deliver = async (attempt: number): Promise<void> => {
      try {
        const res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        if (res.ok) {
          opts.logger.info({ orderId, providerSlug }, 'mock store callback delivered');
          return;
        }
        throw new Error(`status ${res.status}`);
      } catch (err) {
        if (attempt >= attempts) {
          opts.logger.warn(
            { orderId, providerSlug, error: String(err) },
            'mock store callback not delivered; the order’s poll completes it',
          );
          return;
        }
        setTimeout(() => void deliver(attempt + 1), 1_000).unref();
      }
    };
    setTimeout(() => void deliver(1), delayMs).unref();
  };
}
