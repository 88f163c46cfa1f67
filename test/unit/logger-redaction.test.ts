import Stripe from 'stripe';
import { ApplicationFailure } from '@temporalio/common';
import { createLogger, redact } from '../../src/http/logger';

const PHONE = '+966500000001';
const EMAIL = 'sara@example.com';
const ID_NUMBER = '1098765430';
const SECRET = 'sk_live_do_not_log_me';

/** Logs `fields` through the app's logger and returns the line, parsed, and the raw text. */
function logged(fields: Record<string, unknown> | Error, msg?: string): { line: Record<string, unknown>; text: string } {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
  if (msg === undefined) logger.info(fields);
  else logger.info(fields, msg);
  expect(lines).toHaveLength(1);
  return { line: JSON.parse(lines[0]) as Record<string, unknown>, text: lines[0] };
}

function expectNoPersonalData(text: string): void {
  for (const value of [PHONE, EMAIL, ID_NUMBER, SECRET, '966500000001']) expect(text).not.toContain(value);
}

describe('log redaction at any depth', () => {
  it('redacts nested objects (b.c.email) and keeps what is not personal', () => {
    const { line, text } = logged({ a: 1, b: { c: { email: EMAIL, d: { e: { phone: PHONE, status: 'ok' } } } } }, 'event');
    expect(line).toMatchObject({ a: 1, b: { c: { email: '[redacted]', d: { e: { phone: '[redacted]', status: 'ok' } } } }, msg: 'event' });
    expectNoPersonalData(text);
  });

  it('redacts inside arrays, and keys spelled in other cases (snake_case, headers)', () => {
    const { line, text } = logged({
      recipients: [{ to: PHONE, text: 'Your code is 123456' }, [{ idNumber: ID_NUMBER }]],
      headers: { Authorization: `Bearer ${SECRET}`, 'Set-Cookie': `sid=${SECRET}`, 'content-type': 'application/json' },
      billing: { client_secret: SECRET, receipt_email: EMAIL, mobile_number: PHONE, phoneVerified: true },
    });
    expect(line).toMatchObject({
      recipients: [{ to: '[redacted]', text: '[redacted]' }, [{ idNumber: '[redacted]' }]],
      headers: { Authorization: '[redacted]', 'Set-Cookie': '[redacted]', 'content-type': 'application/json' },
      billing: { client_secret: '[redacted]', receipt_email: '[redacted]', mobile_number: '[redacted]', phoneVerified: true },
    });
    expect(text).not.toMatch(/(?<!\d)123456(?!\d)/); // standalone: the line's epoch time may hold those digits
    expectNoPersonalData(text);
  });

  it("redacts a card processor's error: err.raw and the objects it carries", () => {
    const err = new Stripe.errors.StripeCardError({
      message: 'Your card was declined.',
      type: 'card_error',
      code: 'card_declined',
      payment_intent: { id: 'pi_1', receipt_email: EMAIL, payment_method: { billing_details: { email: EMAIL, phone: PHONE } } },
      headers: { 'request-id': 'req_1' },
      statusCode: 402,
    } as unknown as ConstructorParameters<typeof Stripe.errors.StripeCardError>[0]);
    const { line, text } = logged({ err, paymentId: 'p1' }, 'payment provider call failed');
    expect(line).toMatchObject({
      paymentId: 'p1',
      err: {
        type: 'StripeCardError',
        message: 'Your card was declined.',
        code: 'card_declined',
        statusCode: 402,
        raw: { code: 'card_declined', payment_intent: { id: 'pi_1', payment_method: { billing_details: { email: '[redacted]' } } } },
      },
    });
    expect((line.err as { stack: string }).stack).toContain('Your card was declined.');
    expectNoPersonalData(text);
  });

  it('redacts an error logged on its own and its cause chain', () => {
    const cause = Object.assign(new Error('upstream refused'), { request: { body: { mobileNumber: PHONE } } });
    const { line, text } = logged(new Error('send failed', { cause }));
    expect(line).toMatchObject({
      msg: 'send failed',
      err: {
        type: 'Error',
        message: 'send failed',
        cause: { message: 'upstream refused', request: { body: { mobileNumber: '[redacted]' } } },
      },
    });
    expectNoPersonalData(text);
  });

  it('redacts a Temporal-style payload: update arguments, failure details, payload bytes', () => {
    const payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(JSON.stringify({ idNumber: ID_NUMBER })),
    };
    const failure = ApplicationFailure.create({
      message: 'identity check failed',
      type: 'IdentityError',
      details: [{ identity: { idNumber: ID_NUMBER, phone: PHONE } }],
    });
    const { line, text } = logged({
      workflowId: 'activation:1',
      update: { name: 'verifyIdentity', args: [{ activationId: 'a1', identity: { type: 'citizen', idNumber: ID_NUMBER } }] },
      input: { payloads: [payload] },
      error: failure,
    });
    expect(line).toMatchObject({
      workflowId: 'activation:1',
      update: { args: [{ activationId: 'a1', identity: { type: 'citizen', idNumber: '[redacted]' } }] },
      input: { payloads: [{ metadata: { encoding: '[10 bytes]' }, data: expect.stringMatching(/^\[\d+ bytes\]$/) as unknown }] },
      // An ApplicationFailure's own `type` field (its failure type) is kept.
      error: {
        type: 'IdentityError',
        nonRetryable: false,
        message: 'identity check failed',
        details: [{ identity: { idNumber: '[redacted]', phone: '[redacted]' } }],
      },
    });
    expectNoPersonalData(text);
  });

  it('survives cycles, keeps shared objects, and serializes like JSON (dates, toJSON)', () => {
    const shared = { status: 'ok' };
    const cyclic: Record<string, unknown> = { shared, again: shared, at: new Date('2026-01-02T03:04:05Z') };
    cyclic.self = cyclic;
    expect(redact(cyclic)).toEqual({
      shared: { status: 'ok' },
      again: { status: 'ok' },
      at: '2026-01-02T03:04:05.000Z',
      self: '[circular]',
    });
  });

  it('does not change what it is given', () => {
    const fields = { user: { email: EMAIL } };
    logged(fields);
    expect(fields.user.email).toBe(EMAIL);
  });

  it('applies to child loggers (the worker logs through one)', () => {
    const lines: string[] = [];
    const child = createLogger('info', { write: (line: string) => void lines.push(line) }).child({ name: 'worker' });
    child.warn({ meta: { nested: { email: EMAIL } } }, 'x');
    expect(JSON.parse(lines[0])).toMatchObject({ name: 'worker', meta: { nested: { email: '[redacted]' } } });
  });
});
