/**
 * `npm run demo -- --store`: the eSIM store on the running stack (`npm start`, the mock store and FX
 * source): browse in SAR, acknowledge the device, order, pay by card (charged in USD), wait for the
 * store order workflow to issue the profile, fetch the QR code, read the QR e-mail in the development
 * message file, and print the run's link in the Temporal UI.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { RegisterResponse } from '../auth/schemas';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import type { PaymentResult, Receipt } from '../payments/schemas';
import type { AcknowledgementResponse, ProductList, StoreOrderResponse, StoreStatusResponse } from '../store/schemas';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { createDemoClient, DemoError, OTP_PATTERN, type DemoClient, type DemoClientOptions } from './demo-client';
import { digits, runUrl } from './demo-steps';

export interface StoreDemoOptions extends DemoClientOptions {
  temporalUiUrl?: string;
  /** Where the eSIM is for (default SA) and which of mock-store's products to order (default: an orderable one). */
  country?: string;
  choose?: (product: z.infer<typeof ProductList>['items'][number]) => boolean;
  /** How the order ends (default `issued`, then the QR code and e-mail are read; the replay corpus walks the others). */
  expect?: 'issued' | 'failed' | 'expired';
}

export interface StoreDemoResult {
  orderId: string;
  paymentId: string;
  status: string;
  qrBytes: number;
  email: string;
}

const FINAL = ['issued', 'failed', 'expired'];

export async function runStoreDemo(opts: StoreDemoOptions): Promise<StoreDemoResult> {
  const c = createDemoClient(opts);

  c.step('The store is open');
  const status = await c.call<z.infer<typeof StoreStatusResponse>>('GET', '/store/status');
  c.show('enabled', status.data.enabled);
  c.show('currencies', status.data.currencies.join(', '));
  if (!status.data.enabled) throw new DemoError('the store is off: start the stack with FEATURE_ESIM_STORE=true');

  const country = opts.country ?? 'SA';
  c.step(`Browse eSIMs for ${country}, prices in SAR`);
  const list = await c.call<z.infer<typeof ProductList>>('GET', `/store/products?country=${country}&currency=SAR`);
  for (const p of list.items) c.show(p.providerSlug, `${p.nameEn}: ${p.price.amount} SAR (${p.priceUsd.amount} USD)`);
  const choose = opts.choose ?? (() => true);
  const product = list.items.find((p) => p.providerSlug === 'mock-store' && !p.requiresKyc && p.priceUsd.amount >= 0.5 && choose(p));
  if (!product) throw new DemoError(`no orderable product of mock-store for ${country}`);
  c.show('chosen', `${product.nameEn} (${product.id})`);

  c.step('Register with an e-mail address (the QR e-mail goes there) and sign in with its one-time code');
  const email = `store-demo-${digits(8)}@example.com`;
  const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
  const since = new Date();
  await c.call<z.infer<typeof RegisterResponse>>('POST', '/auth/register', { email, name: 'Store Demo', consents });
  const otp = await c.awaitMessage('the OTP e-mail', email, OTP_PATTERN, since);
  const session = await c.call<{ session: { token?: string } }>('POST', '/auth/verify-otp', { email, otp });
  const token = session.session.token ?? '';
  c.show('email', email);

  c.step('Acknowledge the device: it supports eSIM and is carrier-unlocked');
  const ack = await c.call<z.infer<typeof AcknowledgementResponse>>(
    'POST',
    '/store/device-acknowledgements',
    { deviceModel: 'Demo Phone 1', esimCompatible: true, carrierUnlocked: true },
    { token },
  );
  c.show('ackId', ack.data.id);

  c.step('Order it at the price seen (the order and its USD order row in one transaction; its workflow starts)');
  const created = await c.call<z.infer<typeof StoreOrderResponse>>(
    'POST',
    '/store/orders',
    { productId: product.id, currency: 'SAR', deviceAcknowledgementId: ack.data.id, expectedPrice: product.price },
    { token },
  );
  const orderId = created.data.id;
  c.show('orderId', orderId);
  c.show('charge', `${created.data.charge.amount} USD (shown as ${created.data.display.amount} SAR)`);

  if (opts.expect === 'expired') {
    c.step('Never pay: the order expires at its payment TTL');
    const ended = await awaitFinal(c, orderId, token);
    if (ended.status !== 'expired') throw new DemoError(`the unpaid order ended ${ended.status}`);
    return { orderId, paymentId: '', status: ended.status, qrBytes: 0, email };
  }

  c.step('Pay by card (mock processor: charged in USD at once; the order’s run hears of it)');
  const payment = await c.call<z.infer<typeof PaymentResult>>(
    'POST',
    '/payments/create-intent',
    { orderId, method: 'card_scheme_1', idempotencyKey: `demo-${randomUUID()}` },
    { token },
  );
  c.show('paymentId', payment.paymentId);
  const receipt = await c.call<z.infer<typeof Receipt>>('GET', `/payments/${payment.paymentId}/receipt`, undefined, { token });
  c.show('receipt', `${receipt.receiptNumber}: ${receipt.amountSar} ${receipt.currency}, ${receipt.status}`);

  c.step('Wait for the provider to issue the eSIM');
  const final = await awaitFinal(c, orderId, token);
  const expected = opts.expect ?? 'issued';
  if (final.status !== expected) throw new DemoError(`the order ended ${final.status}: ${final.failureReason ?? ''}`);
  if (expected !== 'issued') return { orderId, paymentId: payment.paymentId, status: final.status, qrBytes: 0, email };
  const profile = final.esimProfile!;
  c.show('iccid', profile.iccid);
  c.show('activation', profile.activationCodeRaw);

  c.step('Fetch the QR code');
  const qr = await fetch(`${opts.baseUrl}${profile.qrUrl}`, { headers: { authorization: `Bearer ${token}`, 'x-client-type': 'mobile' } });
  const png = Buffer.from(await qr.arrayBuffer());
  if (qr.status !== 200) throw new DemoError(`GET ${profile.qrUrl} answered ${qr.status}`);
  c.show('qr', `${qr.headers.get('content-type')}, ${png.length} bytes, Cache-Control: ${qr.headers.get('cache-control')}`);

  c.step('Read the QR e-mail (both languages, the activation code as text; SMTP adds the QR image inline)');
  const mailed = await c.awaitMessage('the QR e-mail', email, /(LPA:1\$\S+)/, since);
  c.show('e-mail code', `${mailed}  (from ${c.messagesFile})`);

  c.log(`\nDone in ${c.summary()}: store order ${orderId} is issued.`);
  if (opts.temporalUiUrl) {
    c.log(`The workflow run: ${runUrl(opts.temporalUiUrl, storeOrderWorkflowId(orderId))}`);
    c.log(`or search the UI for  OrderId = "${orderId}"`);
  }
  return { orderId, paymentId: payment.paymentId, status: final.status, qrBytes: png.length, email };
}

/** Polls the order until it is final (issued, failed or expired), showing each status it passes. */
async function awaitFinal(c: DemoClient, orderId: string, token: string) {
  let last = '';
  return c.until('the order to end', async () => {
    const read = await c.call<z.infer<typeof StoreOrderResponse>>('GET', `/store/orders/${orderId}`, undefined, { token, quiet: true });
    if (read.data.status !== last) c.show('status', (last = read.data.status));
    return FINAL.includes(read.data.status) ? read.data : undefined;
  });
}
