import { defineEntity, p } from '@mikro-orm/core';

/**
 * Counters of the global rate limit, in the layout rate-limiter-flexible's
 * Postgres store expects, so every API instance shares them.
 */
export const RateLimitCounter = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limits',
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    expire: p.bigint('number').nullable().index(),
  },
});
