import { PAYMENT_METHODS, type PaymentMethod } from '../../src/entities';
import { errorCodes } from '../../src/http/error-codes';
import { AppError } from '../../src/http/errors';
import type { Sql } from '../../src/db/sql';
import { assertMethodAllowed, resolveOrderPaymentContext, type MethodCheck } from '../../src/payments/policy';
import { storeOrderPayments } from '../../src/store';

/** The outcome as a code, or 'allowed'. */
function outcome(check: MethodCheck): string {
  try {
    assertMethodAllowed(check);
    return 'allowed';
  } catch (err) {
    if (err instanceof AppError) return `${err.code} ${errorCodes[err.code].status}`;
    throw err;
  }
}

const NOT_SUPPORTED = 'PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER 422';
const EXTERNAL = 'STORE_PROVIDER_PAYMENT_EXTERNAL 422';

// The spec's method table, row by row: [method, local order, store order (provider mode internal)].
const TABLE: Array<[PaymentMethod, string, string]> = [
  ['local_debit', 'allowed', NOT_SUPPORTED],
  ['card_scheme_1', 'allowed', 'allowed'],
  ['card_scheme_2', 'allowed', 'allowed'],
  ['generic_processor', 'allowed', 'allowed'],
  ['wallet_token', 'allowed', 'allowed'],
  ['mobile_wallet', 'allowed', NOT_SUPPORTED],
];

describe('payment method policy', () => {
  it('covers every payment method', () => {
    expect(TABLE.map(([m]) => m).sort()).toEqual([...PAYMENT_METHODS].sort());
  });

  it.each(TABLE)('%s: local order %s, store order %s', (method, local, store) => {
    expect(outcome({ orderKind: 'local', method })).toBe(local);
    expect(outcome({ orderKind: 'store', method, storeProviderPaymentMode: 'internal' })).toBe(store);
  });

  it.each(PAYMENT_METHODS)('a local order ignores any store provider mode (%s)', (method) => {
    expect(outcome({ orderKind: 'local', method, storeProviderPaymentMode: 'external' })).toBe('allowed');
  });

  it.each(PAYMENT_METHODS)('a store order whose provider takes payment externally fails closed, whatever the method (%s)', (method) => {
    expect(outcome({ orderKind: 'store', method, storeProviderPaymentMode: 'external' })).toBe(EXTERNAL);
  });

  it.each(PAYMENT_METHODS)('a store order with an unknown provider payment mode fails closed (%s)', (method) => {
    expect(outcome({ orderKind: 'store', method })).toBe(EXTERNAL);
  });

  it('resolves an order without a store order as local, consumer and company orders alike; a store order by its provider', async () => {
    const sql = (paymentMode?: string) => ({ one: () => Promise.resolve(paymentMode ? { paymentMode } : undefined) }) as unknown as Sql;
    await expect(resolveOrderPaymentContext(sql(), { id: 'o1', company_id: null }, storeOrderPayments)).resolves.toEqual({
      orderKind: 'local',
    });
    await expect(
      resolveOrderPaymentContext(sql(), { id: 'o2', company_id: '7d0c1f0e-1111-4a4a-8888-000000000001' }, storeOrderPayments),
    ).resolves.toEqual({
      orderKind: 'local',
    });
    await expect(resolveOrderPaymentContext(sql('internal'), { id: 'o3', company_id: null }, storeOrderPayments)).resolves.toEqual({
      orderKind: 'store',
      storeProviderPaymentMode: 'internal',
    });
  });
});
