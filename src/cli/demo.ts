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
 *   npm run demo -- --url http://127.0.0.1:3000 --messages .data/messages.jsonl
 *
 * Environment: API_URL (default http://127.0.0.1:$PORT, PORT default 3000),
 * MESSAGES_FILE (default .data/messages.jsonl), TEMPORAL_UI_URL (default
 * http://127.0.0.1:8233).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { ActivationStatusResponse } from '../activations/read-routes';
import type {
  CreateActivationResponse,
  IdentityStatusResponse,
  ValidateIccidResponse,
  VerifyIdentityResponse,
} from '../activations/schemas';
import type { RegisterResponse, SignInResponse } from '../auth/schemas';
import { DEMO } from '../catalog/demo-seed';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import { activationWorkflowId } from '../../workflows/activation-contract';
import { withLuhnDigit } from '../operators/mock';
import type { PaymentResult, Receipt } from '../payments/schemas';

export interface DemoOptions {
  baseUrl: string;
  /** Where the development message sender appends SMS/e-mail (JSON lines). */
  messagesFile: string;
  simType?: 'physical' | 'esim';
  /** For the printed link to the activation's run. */
  temporalUiUrl?: string;
  /** Gives up on a step that does not reach its state in this long. */
  stepTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface DemoResult {
  userId: string;
  activationId: string;
  orderId: string;
  paymentId: string;
  receiptNumber: string;
  status: string;
}

/** A status poll reads the activation, or (422) the error envelope of one that cannot be read yet. */
type StatusPoll = Partial<z.infer<typeof ActivationStatusResponse>> & { error?: { code: string; message: string } };
const FINAL_STATUSES: readonly string[] = ['activated', 'failed', 'cancelled'];

class DemoError extends Error {}

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** A valid mock ICCID whose behaviour digits (15-18) activate on the first try. */
export function demoIccid(): string {
  return withLuhnDigit(`89966${digits(9)}0${digits(3)}`);
}

export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const simType = opts.simType ?? 'physical';
  const timeoutMs = opts.stepTimeoutMs ?? 45_000;
  const started = Date.now();
  // Set once signed in; `call` (defined before) sends it from then on.
  const auth: { token?: string } = {};
  let stepNo = 0;

  const step = (title: string) => log(`\n${++stepNo}. ${title}  (+${((Date.now() - started) / 1000).toFixed(1)}s)`);
  const show = (label: string, value: unknown) =>
    log(`   ${label.padEnd(14)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);

  // `quiet` for polls: they print a line only when what they read changes.
  // The body is typed as the route's response schema declares it; nothing checks it at run time.
  async function call<T = unknown>(method: string, route: string, body?: unknown, expected = [200, 201], quiet = false): Promise<T> {
    const res = await fetch(`${opts.baseUrl}${route}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-client-type': 'mobile',
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : {};
    if (!expected.includes(res.status)) throw new DemoError(`${method} ${route} answered ${res.status}: ${text}`);
    if (!quiet) log(`   ${method} ${route} -> ${res.status}`);
    return json as T;
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new DemoError(`gave up waiting for ${what} after ${timeoutMs / 1000}s`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  step('The stack is ready');
  await call('GET', '/readyz');

  step('Register with a phone number and the required consents');
  const phone = `+9665${digits(8)}`;
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  const registered = await call<z.infer<typeof RegisterResponse>>('POST', '/auth/register', { phone, name: 'Demo User', consents });
  show('phone', phone);
  show('userId', registered.userId);

  step('Sign in with the one-time code sent by SMS');
  const otp = await until('the OTP message', () => latestCode(opts.messagesFile, phone));
  show('code', `${otp}  (from ${opts.messagesFile})`);
  const session = await call<z.infer<typeof SignInResponse>>('POST', '/auth/verify-otp', { phone, otp });
  auth.token = session.session.token;
  const userId = session.user.id;

  step(`Validate the ${simType === 'esim' ? 'eSIM activation code' : 'SIM serial (ICCID)'}`);
  const serial = simType === 'esim' ? `LPA:1$smdp.demo.example$DEMO-${randomUUID().slice(0, 8).toUpperCase()}` : demoIccid();
  const validation = await call<z.infer<typeof ValidateIccidResponse>>('POST', '/activations/validate-iccid', { iccid: serial, simType });
  show('serial', serial);
  show('valid', validation.valid);
  if (!validation.valid) throw new DemoError(`serial refused: ${validation.error}`);

  step('Create the activation (one transaction: order, order item, activation; the workflow starts)');
  const created = await call<z.infer<typeof CreateActivationResponse>>('POST', '/activations', {
    iccid: serial,
    packageId: DEMO.packages.starter,
    simType,
  });
  const { activationId, orderId } = created;
  show('activationId', activationId);
  show('orderId', orderId);
  show('status', `${created.status}, identity ${created.identityStatus}`);

  step('Verify the national identity (the mock provider confirms after a few seconds)');
  const verification = await call<z.infer<typeof VerifyIdentityResponse>>('POST', `/activations/${activationId}/verify-identity`, {
    identityType: 'citizen',
    idNumber: '1098765430',
  });
  show('randomCode', `${verification.randomCode}  (confirmed in the identity app)`);
  log(`   polling GET /activations/${activationId}/verify-identity`);
  const identity = await until(
    'identity verification',
    async () => {
      const res = await call<z.infer<typeof IdentityStatusResponse>>(
        'GET',
        `/activations/${activationId}/verify-identity`,
        undefined,
        [200],
        true,
      );
      return res.status === 'waiting' ? undefined : res;
    },
    500,
  );
  show('identity', identity);
  if (identity.status !== 'completed') throw new DemoError(`identity verification ended ${identity.status}`);

  step('Pay for the order (mock provider: the payment completes at once and the workflow hears of it)');
  const payment = await call<z.infer<typeof PaymentResult>>('POST', '/payments/create-intent', {
    orderId,
    method: 'local_debit',
    idempotencyKey: `demo-${randomUUID()}`,
  });
  show('paymentId', payment.paymentId);
  show('status', payment.status);

  step('Wait for the workflow to hand the SIM to the operator');
  log(`   polling GET /activations/${activationId}/status`);
  let seen: string | undefined;
  const final = await until(
    'the activation to finish',
    async () => {
      const res = await call<StatusPoll>('GET', `/activations/${activationId}/status`, undefined, [200, 422], true);
      if (res.status !== seen) show('status', (seen = res.status) ?? res.error);
      return FINAL_STATUSES.includes(res.status ?? '') || res.error ? res : undefined;
    },
    500,
  );
  if (final.status !== 'activated') throw new DemoError(`activation ended ${JSON.stringify(final)}`);
  show('iccid', final.iccid);
  if (final.esimProfile) show('esimProfile', final.esimProfile);

  step('Read the receipt');
  const receipt = await call<z.infer<typeof Receipt>>('GET', `/payments/${payment.paymentId}/receipt`);
  show('receipt', `${receipt.receiptNumber}: ${receipt.amountSar} ${receipt.currency}, ${receipt.status}, paid ${receipt.paidAt}`);

  log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)}s: activation ${activationId} is activated.`);
  if (opts.temporalUiUrl) {
    log(`The workflow run: ${opts.temporalUiUrl}/namespaces/default/workflows/${activationWorkflowId(activationId)}`);
    log(`or search the UI for  ActivationId = "${activationId}"  or  PaymentId = "${payment.paymentId}"`);
  }
  return { userId, activationId, orderId, paymentId: payment.paymentId, receiptNumber: receipt.receiptNumber, status: final.status };
}

/** The newest six-digit code sent to `to`, if any. */
async function latestCode(file: string, to: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.trim().split('\n').filter(Boolean).reverse();
  for (const line of lines) {
    const message = JSON.parse(line) as { to: string; text: string };
    if (message.to === to) return /\b(\d{6})\b/.exec(message.text)?.[1];
  }
  return undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, messages: { type: 'string' }, esim: { type: 'boolean', default: false } },
  });
  const root = path.resolve(__dirname, '..', '..', '..'); // dist/src/cli -> repository root
  const baseUrl = values.url ?? process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
  const messagesFile = path.resolve(root, values.messages ?? process.env.MESSAGES_FILE ?? '.data/messages.jsonl');
  console.log(`activation-sys demo against ${baseUrl} (start the stack first: npm start)`);
  try {
    await runDemo({
      baseUrl,
      messagesFile,
      simType: values.esim ? 'esim' : 'physical',
      temporalUiUrl: process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${process.env.TEMPORAL_UI_PORT ?? 8233}`,
    });
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
