import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCardProcessorProvider, createMockPaymentProvider, type ProviderPaymentInput } from '../../src/payments/providers';

// cancelIntent: an order that was cancelled has its open processor intent cancelled. A cancel that comes
// too late (the intent succeeded) answers the intent as it is, so the caller can settle it for refund.

const input: ProviderPaymentInput = {
  paymentId: '11111111-2222-4333-8444-555555555555',
  orderId: '66666666-7777-4888-9999-000000000000',
  userId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
  amountMinor: 4900n,
  currency: 'SAR',
  method: 'mobile_wallet',
  idempotencyKey: 'payment-11111111-2222-4333-8444-555555555555',
};

describe('mock provider', () => {
  it('cancels an open intent, leaves a succeeded one as it is, and does not know others', async () => {
    const mock = createMockPaymentProvider({ publicBaseUrl: 'https://api.example.test' });
    const open = await mock.startMobileWallet({ ...input, mobileNumber: '0512345678' });
    expect(await mock.cancelIntent(open.gatewayTransactionId!)).toMatchObject({ id: open.gatewayTransactionId, status: 'canceled' });
    expect(await mock.retrieveIntent(open.gatewayTransactionId!)).toMatchObject({ status: 'canceled' });

    const paid = await mock.createIntent({ ...input, method: 'card_scheme_1' });
    expect(await mock.cancelIntent(paid.gatewayTransactionId!)).toMatchObject({ status: 'succeeded', amountReceivedMinor: 4900n });
    expect(await mock.cancelIntent('mock_pi_unknown')).toBeNull();
  });
});

describe('card processor (official library against a local stand-in)', () => {
  const seen: Array<{ method: string; path: string; body: string }> = [];
  let server: Server;
  let baseUrl: string;
  const intent = (id: string, status: string) => ({
    id,
    object: 'payment_intent',
    amount: 4900,
    amount_received: status === 'succeeded' ? 4900 : 0,
    currency: 'sar',
    status,
    metadata: { payment_id: input.paymentId, order_id: input.orderId, user_id: input.userId },
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, path: req.url!, body });
        const reply = (status: number, payload: object) => {
          res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': 'req_test' });
          res.end(JSON.stringify(payload));
        };
        const [, , , id, action] = req.url!.split('/'); // /v1/payment_intents/<id>[/cancel]
        if (id === 'pi_missing')
          return reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such' } });
        if (id === 'pi_down') return reply(500, { error: { type: 'api_error', message: 'boom' } });
        if (action === 'cancel' && id === 'pi_open') return reply(200, intent(id, 'canceled'));
        if (action === 'cancel') {
          return reply(400, {
            error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message: 'already succeeded' },
          });
        }
        return reply(200, intent(id, 'succeeded'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => seen.splice(0));

  const provider = () => createCardProcessorProvider({ apiKey: 'sk_test_local', apiBaseUrl: baseUrl, maxNetworkRetries: 0 });

  it('cancels an open intent as abandoned', async () => {
    expect(await provider().cancelIntent('pi_open')).toMatchObject({ id: 'pi_open', status: 'canceled', amountReceivedMinor: 0n });
    expect(seen).toEqual([{ method: 'POST', path: '/v1/payment_intents/pi_open/cancel', body: 'cancellation_reason=abandoned' }]);
  });

  it('answers a succeeded intent it can no longer cancel as succeeded (the caller settles it for refund)', async () => {
    expect(await provider().cancelIntent('pi_paid')).toEqual({
      id: 'pi_paid',
      status: 'succeeded',
      amountMinor: 4900n,
      amountReceivedMinor: 4900n,
      currency: 'SAR',
      metadata: { payment_id: input.paymentId, order_id: input.orderId, user_id: input.userId },
    });
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/payment_intents/pi_paid/cancel',
      'GET /v1/payment_intents/pi_paid',
    ]);
  });

  it('answers null for an intent the processor does not know, and throws when it is down (the activity retries)', async () => {
    expect(await provider().cancelIntent('pi_missing')).toBeNull();
    await expect(provider().cancelIntent('pi_down')).rejects.toThrow();
  });
});
