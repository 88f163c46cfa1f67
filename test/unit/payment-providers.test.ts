import {
  createCardProcessorProvider,
  createMockPaymentProvider,
  createPaymentProvider,
  type ProviderPaymentInput,
} from '../../src/payments/providers';
import { loadConfig } from '../../src/config';
import { fakeProcessor } from '../helpers/payments';

const input = (over: Partial<ProviderPaymentInput> = {}): ProviderPaymentInput => ({
  paymentId: '11111111-2222-4333-8444-555555555555',
  orderId: '66666666-7777-4888-9999-000000000000',
  userId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
  amountMinor: 4900n,
  currency: 'SAR',
  method: 'card_scheme_1',
  idempotencyKey: 'payment-11111111-2222-4333-8444-555555555555',
  ...over,
});

describe('mock payment provider', () => {
  const mock = createMockPaymentProvider({ publicBaseUrl: 'https://api.example.test/' });

  it('completes create-intent and wallet-token at once with mock_pi ids, the same on a repeated call', async () => {
    const first = await mock.createIntent(input());
    expect(first).toEqual({
      status: 'completed',
      gatewayTransactionId: 'mock_pi_11111111222243338444555555555555',
      clientSecret: 'mock_pi_11111111222243338444555555555555_secret_mock',
    });
    expect(await mock.createIntent(input())).toEqual(first);
    expect(await mock.payWithWalletToken({ ...input({ method: 'wallet_token' }), walletToken: 'tok_visa' })).toMatchObject({
      status: 'completed',
      gatewayTransactionId: first.gatewayTransactionId,
    });
  });

  it('answers processing with a redirect URL under PUBLIC_BASE_URL for mobile wallet', async () => {
    expect(await mock.startMobileWallet({ ...input({ method: 'mobile_wallet' }), mobileNumber: '0512345678' })).toEqual({
      status: 'processing',
      gatewayTransactionId: 'mock_mw_11111111222243338444555555555555',
      redirectUrl: 'https://api.example.test/mock-wallet/redirect/11111111-2222-4333-8444-555555555555',
    });
  });

  it('fails on its documented triggers', async () => {
    expect(await mock.createIntent(input({ amountMinor: 1013n }))).toEqual({
      status: 'failed',
      gatewayTransactionId: null,
      failureReason: 'card_declined',
    });
    expect(await mock.payWithWalletToken({ ...input(), walletToken: 'tok_fail' })).toMatchObject({
      status: 'failed',
      failureReason: 'wallet_token_declined',
    });
    expect(await mock.startMobileWallet({ ...input(), mobileNumber: '0512340000' })).toMatchObject({
      status: 'failed',
      failureReason: 'mobile_wallet_rejected',
    });
  });

  it('retrieves the intents it created, for reconciliation', async () => {
    const { gatewayTransactionId } = await mock.createIntent(input());
    expect(await mock.retrieveIntent(gatewayTransactionId!)).toEqual({
      id: gatewayTransactionId,
      status: 'succeeded',
      amountMinor: 4900n,
      amountReceivedMinor: 4900n,
      currency: 'SAR',
      metadata: { payment_id: input().paymentId, order_id: input().orderId, user_id: input().userId },
    });
    expect(await mock.retrieveIntent('mock_pi_unknown')).toBeNull();
  });
});

describe('card processor provider (official library against a local stand-in)', () => {
  let processor: Awaited<ReturnType<typeof fakeProcessor>>;
  beforeAll(async () => {
    processor = await fakeProcessor();
  });
  afterAll(() => processor.close());
  beforeEach(() => processor.seen.splice(0));

  const provider = () => createCardProcessorProvider({ apiKey: 'sk_test_local', apiBaseUrl: processor.baseUrl, maxNetworkRetries: 0 });

  it('creates a PaymentIntent in minor units, lower-case currency, with metadata and the idempotency key', async () => {
    const result = await provider().createIntent(input({ amountMinor: 12345n }));
    expect(result).toEqual({ status: 'processing', gatewayTransactionId: 'pi_test_123', clientSecret: 'pi_test_123_secret_abc' });
    expect(processor.seen).toHaveLength(1);
    const [req] = processor.seen;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/payment_intents');
    expect(req.headers['idempotency-key']).toBe('payment-11111111-2222-4333-8444-555555555555');
    expect(req.headers.authorization).toBe('Bearer sk_test_local');
    expect(req.form).toEqual({
      amount: '12345',
      currency: 'sar',
      'metadata[payment_id]': input().paymentId,
      'metadata[order_id]': input().orderId,
      'metadata[user_id]': input().userId,
      'allowed_payment_method_types[0]': 'card',
    });
  });

  it('lets the processor choose the methods for generic_processor', async () => {
    await provider().createIntent(input({ method: 'generic_processor' }));
    expect(processor.seen[0].form).toMatchObject({ 'automatic_payment_methods[enabled]': 'true' });
    expect(processor.seen[0].form['allowed_payment_method_types[0]']).toBeUndefined();
  });

  it('confirms a wallet token at once and still answers processing (success only comes by verified callback)', async () => {
    const result = await provider().payWithWalletToken({ ...input({ method: 'wallet_token' }), walletToken: 'pm_wallet_ok' });
    expect(result).toMatchObject({ status: 'processing', gatewayTransactionId: 'pi_test_123' });
    expect(processor.seen[0].form).toMatchObject({
      payment_method: 'pm_wallet_ok',
      confirm: 'true',
      'allowed_payment_method_types[0]': 'card',
    });
  });

  it('answers a decline as failed with the decline code', async () => {
    const result = await provider().payWithWalletToken({ ...input({ method: 'wallet_token' }), walletToken: 'pm_card_declined' });
    expect(result).toEqual({ status: 'failed', gatewayTransactionId: null, failureReason: 'insufficient_funds' });
  });

  it('throws when the processor fails (server error), so the service fails the payment as provider_unavailable', async () => {
    await expect(provider().payWithWalletToken({ ...input(), walletToken: 'pm_server_error' })).rejects.toThrow();
  });

  it('refuses amounts beyond a safe integer without calling the processor', async () => {
    await expect(provider().createIntent(input({ amountMinor: 2n ** 60n }))).rejects.toThrow(/cannot be charged/);
    expect(processor.seen).toHaveLength(0);
  });

  it('does not offer mobile wallets', async () => {
    expect(await provider().startMobileWallet({ ...input({ method: 'mobile_wallet' }), mobileNumber: '0512345678' })).toMatchObject({
      status: 'failed',
    });
    expect(processor.seen).toHaveLength(0);
  });

  it('retrieves an intent for reconciliation, null when unknown', async () => {
    expect(await provider().retrieveIntent('pi_test_123')).toEqual({
      id: 'pi_test_123',
      status: 'succeeded',
      amountMinor: 4900n,
      amountReceivedMinor: 4900n,
      currency: 'SAR',
      metadata: { payment_id: 'p', order_id: 'o', user_id: 'u' },
    });
    expect(await provider().retrieveIntent('pi_missing')).toBeNull();
  });
});

describe('provider selection by configuration', () => {
  it('defaults to the mock', () => {
    expect(createPaymentProvider(loadConfig({ NODE_ENV: 'test' })).name).toBe('mock');
  });

  it('selects the card processor, which requires its API key', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', PAYMENT_PROVIDER: 'card_processor' })).toThrow(/CARD_PROCESSOR_API_KEY/);
    const config = loadConfig({
      NODE_ENV: 'test',
      PAYMENT_PROVIDER: 'card_processor',
      CARD_PROCESSOR_API_KEY: 'sk_test_x',
      CARD_PROCESSOR_WEBHOOK_SECRET: 'whsec_' + 'w'.repeat(32),
    });
    expect(createPaymentProvider(config).name).toBe('card_processor');
  });
});
