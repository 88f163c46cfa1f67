/**
 * `npm run demo`: walks the running stack (`npm start`, mock providers) from
 * register to an `activated` SIM over HTTP, printing each step, the way a
 * mobile client would. Nothing is faked: the OTP is read where the development
 * SMS provider writes it, identity is verified by the mock provider, payment is
 * taken by the mock provider, and the Temporal worker hands the SIM to the mock
 * operator.
 *
 *   npm run demo                 physical SIM
 *   npm run demo -- --esim       eSIM (prints the issued profile and its QR URL)
 *   npm run demo -- --b2b        a company from its invitation to a staff member's activated SIM and the
 *                                company's billing (src/cli/demo-b2b.ts; --admin-phone <E.164> for an
 *                                existing super_admin, else one is created as npm run create-user does)
 *   npm run demo -- --store      the eSIM store: browse in SAR, order, pay by card in USD, the issued eSIM, its QR
 *                                and the QR e-mail (src/cli/demo-store.ts)
 *   npm run demo -- --url http://127.0.0.1:3000 --messages .data/messages.jsonl
 *
 * Environment: API_URL (default http://127.0.0.1:$PORT, PORT default 3000),
 * MESSAGES_FILE (default .data/messages.jsonl), TEMPORAL_UI_URL (default
 * http://127.0.0.1:8233).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { RegisterResponse } from '../auth/schemas';
import { DEMO } from '../catalog/demo-seed';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import type { PaymentResult, Receipt } from '../payments/schemas';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { runB2bDemo } from './demo-b2b';
import { runStoreDemo } from './demo-store';
import { createDemoClient, type DemoClientOptions } from './demo-client';
import { awaitActivated, createActivation, demoPhone, runUrl, verifyIdentity, verifyOtp } from './demo-steps';

export { demoIccid } from './demo-steps';

export interface DemoOptions extends DemoClientOptions {
  simType?: 'physical' | 'esim';
  /** For the printed link to the activation's run. */
  temporalUiUrl?: string;
}

export interface DemoResult {
  userId: string;
  activationId: string;
  orderId: string;
  paymentId: string;
  receiptNumber: string;
  status: string;
}

export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const c = createDemoClient(opts);
  const simType = opts.simType ?? 'physical';

  c.step('The stack is ready');
  await c.call('GET', '/readyz');

  c.step('Register with a phone number and the required consents');
  const phone = demoPhone();
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  const since = new Date();
  const registered = await c.call<z.infer<typeof RegisterResponse>>('POST', '/auth/register', { phone, name: 'Demo User', consents });
  c.show('phone', phone);
  c.show('userId', registered.userId);

  c.step('Sign in with the one-time code sent by SMS');
  const { token, user } = await verifyOtp(c, phone, since);

  const { activationId, orderId } = await createActivation(c, token, DEMO.packages.starter, simType);
  await verifyIdentity(c, token, activationId);

  c.step('Pay for the order (mock provider: the payment completes at once and the workflow hears of it)');
  const payment = await c.call<z.infer<typeof PaymentResult>>(
    'POST',
    '/payments/create-intent',
    { orderId, method: 'local_debit', idempotencyKey: `demo-${randomUUID()}` },
    { token },
  );
  c.show('paymentId', payment.paymentId);
  c.show('status', payment.status);

  const final = await awaitActivated(c, token, activationId);

  c.step('Read the receipt');
  const receipt = await c.call<z.infer<typeof Receipt>>('GET', `/payments/${payment.paymentId}/receipt`, undefined, { token });
  c.show('receipt', `${receipt.receiptNumber}: ${receipt.amountSar} ${receipt.currency}, ${receipt.status}, paid ${receipt.paidAt}`);

  c.log(`\nDone in ${c.summary()}: activation ${activationId} is activated.`);
  if (opts.temporalUiUrl) {
    c.log(`The workflow run: ${runUrl(opts.temporalUiUrl, activationWorkflowId(activationId))}`);
    c.log(`or search the UI for  ActivationId = "${activationId}"  or  PaymentId = "${payment.paymentId}"`);
  }
  return {
    userId: user.id,
    activationId,
    orderId,
    paymentId: payment.paymentId,
    receiptNumber: receipt.receiptNumber,
    status: final.status ?? 'unknown',
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      messages: { type: 'string' },
      esim: { type: 'boolean', default: false },
      b2b: { type: 'boolean', default: false },
      store: { type: 'boolean', default: false },
      'admin-phone': { type: 'string' },
    },
  });
  const root = path.resolve(__dirname, '..', '..', '..'); // dist/src/cli -> repository root
  const baseUrl = values.url ?? process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
  const messagesFile = path.resolve(root, values.messages ?? process.env.MESSAGES_FILE ?? '.data/messages.jsonl');
  const temporalUiUrl = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${process.env.TEMPORAL_UI_PORT ?? 8233}`;
  console.log(
    `activation-sys ${values.b2b ? 'B2B ' : values.store ? 'eSIM store ' : ''}demo against ${baseUrl} (start the stack first: npm start)`,
  );
  try {
    if (values.store) await runStoreDemo({ baseUrl, messagesFile, temporalUiUrl });
    else if (values.b2b) await runB2bDemo({ baseUrl, messagesFile, temporalUiUrl, adminPhone: values['admin-phone'] });
    else await runDemo({ baseUrl, messagesFile, temporalUiUrl, simType: values.esim ? 'esim' : 'physical' });
  } catch (err) {
    const reason =
      err instanceof TypeError && String(err.cause).includes('ECONNREFUSED')
        ? `nothing answers at ${baseUrl}: is \`npm start\` running?`
        : (err as Error).message;
    console.error(`\ndemo failed: ${reason}`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
