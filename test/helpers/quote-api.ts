// What the quote route tests share: typed calls to the portal and admin quote routes.
import request from 'supertest';
import type { z } from 'zod';
import type { QuoteChainList, AdminQuoteChainList, CatalogResponse, QuoteDetailResponse } from '../../src/quotes/schemas';
import { bearer, type TestApp } from './app';
import { typed } from './responses';

export type Detail = z.infer<typeof QuoteDetailResponse>['data'];
export type DetailBody = z.infer<typeof QuoteDetailResponse>;
export type ChainListBody = z.infer<typeof QuoteChainList>;
export type AdminChainListBody = z.infer<typeof AdminQuoteChainList>;
export type CatalogBody = z.infer<typeof CatalogResponse>;

type Method = 'get' | 'post' | 'patch';

/** One call: `token` as bearer, `lang` as Accept-Language, `body` sent as JSON (none for GET). */
export async function call<B>(
  t: TestApp,
  method: Method,
  path: string,
  opts: { token?: string; lang?: string; body?: unknown; query?: object } = {},
) {
  let req = request(t.app)[method](path);
  if (opts.token) req = req.set(bearer(opts.token));
  if (opts.lang) req = req.set('Accept-Language', opts.lang);
  if (opts.query) req = req.query(opts.query);
  return typed<B>(opts.body === undefined ? await req : await req.send(opts.body as object));
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
