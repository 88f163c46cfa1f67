import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { registerProvider } from './repository';

/**
 * The API's start registers the configured real provider's row (STORE_PROVIDER=http, slug STORE_HTTP_SLUG)
 * when it is missing: inactive and never checked, named by its slug, charged through us (paymentMode
 * internal) and able to complete orders later (supportsAsync). Staff turn it on (after its health check)
 * with POST /admin/store/providers/:id/toggle. The mocks' rows come from the development seed instead.
 * Answers the slugs it registered.
 */
export async function registerConfiguredProviders(
  sql: Sql,
  config: Pick<Config, 'STORE_PROVIDER' | 'STORE_HTTP_SLUG'>,
  now = new Date(),
): Promise<string[]> {
  if (config.STORE_PROVIDER !== 'http') return [];
  const slug = config.STORE_HTTP_SLUG;
  const made = await registerProvider(
    sql,
    { id: randomUUID(), slug, nameEn: slug, nameAr: slug, paymentMode: 'internal', supportsAsync: true },
    now,
  );
  return made ? [slug] : [];
}
