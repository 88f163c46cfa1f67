import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../http/errors';
import type { PaymentWorkflows } from '../temporal/payments';
import { isUuid } from '../http/fields';

/**
 * Development only (PAYMENT_PROVIDER=mock, NODE_ENV not production): the page a
 * mock mobile-wallet redirect URL opens. Opening it stands for the person
 * approving the payment in their wallet app: settlement receives a succeeded
 * event exactly as it would from a real processor.
 */
export function mockWalletRoutes(deps: { orm: MikroORM; paymentWorkflows: PaymentWorkflows }): Router {
  const router = Router();
  router.get('/mock-wallet/redirect/:paymentId', async (req, res) => {
    const { paymentId } = req.params;
    if (!isUuid(paymentId)) throw new AppError('NOT_FOUND');
    const [payment] = await deps.orm.em
      .fork()
      .execute<{ status: string }[]>(`select status from payments where id = ? and provider = 'mock' and method = 'mobile_wallet'`, [
        paymentId,
      ]);
    if (!payment) throw new AppError('NOT_FOUND');
    if (payment.status === 'processing') {
      await deps.paymentWorkflows.deliverEvent(paymentId, { eventId: `mock-wallet:${paymentId}`, type: 'payment_intent.succeeded' });
    }
    res.type('html').send(`<!doctype html><meta charset="utf-8"><title>Mock wallet</title>
<p>Mock wallet: payment ${paymentId} ${payment.status === 'processing' ? 'approved' : `is ${payment.status}`}. You can close this page.</p>`);
  });
  return router;
}
