// Every process keeps decrypted personal data for a while (the cipher's cache: names, contacts, id
// numbers). An erasure in one process must not leave them in the others: each process listens for
// erasures and forgets everything it keeps, and does the same whenever its listener is lost (it may
// have missed one).
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { createListener, type Listener } from '../db/listener';
import type { PersonalDataCipher } from '../lib/crypto';
import { ERASED_CHANNEL } from './repository';

export function forgetOnErasure(deps: { pool: Pool; cipher: PersonalDataCipher; logger: Pick<Logger, 'warn'> }): Listener {
  const forget = () => deps.cipher.forgetAll();
  return createListener({
    pool: deps.pool,
    channel: ERASED_CHANNEL,
    onNotification: forget,
    onListening: forget,
    onLost(err) {
      forget();
      if (err) deps.logger.warn({ err }, 'erasure listener lost; decrypted values forgotten, reconnecting');
    },
  });
}
