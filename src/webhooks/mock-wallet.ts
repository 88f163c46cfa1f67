import { Router } from 'express';
import type { Db } from '../db/sql';
import { AppError } from '../http/errors';
import { isUuid } from '../http/fields';
import { findMockWalletPaymentStatus } from '../payments';
import { appendToInbox } from './inbox';

/**
 * Development only (PAYMENT_PROVIDER=mock, NODE_ENV not production): the page a
 * mock mobile-wallet redirect URL opens. Opening it stands for the person
 * approving the payment in their wallet app (with `?decision=declined`, declining it): a
 * succeeded (or failed) event goes into the webhook inbox, and the relay hands it to settlement
 * exactly as it would a real processor's (so the page answers while Temporal is away, too). The
 * event id is the payment's: the first decision stands, however often the page opens.
 */
export function mockWalletRoutes(deps: { db: Db; clock?: () => Date }): Router {
  const router = Router();
  const clock = deps.clock ?? (() => new Date());
  router.get('/mock-wallet/redirect/:paymentId', async (req, res) => {
    const { paymentId } = req.params;
    if (!isUuid(paymentId)) throw new AppError('NOT_FOUND');
    const status = await findMockWalletPaymentStatus(deps.db, paymentId);
    if (!status) throw new AppError('NOT_FOUND');
    const declined = req.query.decision === 'declined';
    if (status === 'processing') {
      const eventId = `mock-wallet:${paymentId}`;
      await appendToInbox(deps.db, {
        provider: 'mock',
        paymentId,
        event: declined
          ? { eventId, type: 'payment_intent.payment_failed', failureMessage: 'mobile_wallet_declined' }
          : { eventId, type: 'payment_intent.succeeded' },
        receivedAt: clock(),
      });
    }
    const decision = declined ? 'declined' : 'approved';
    res.type('html').send(`<!doctype html><meta charset="utf-8"><title>Mock wallet</title>
<p>Mock wallet: payment ${paymentId} ${status === 'processing' ? decision : `is ${status}`}. You can close this page.</p>`);
  });
  return router;
}
