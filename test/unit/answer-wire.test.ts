import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { weakEtag } from '../../src/http/etag';
import { asyncDestination, createLogger } from '../../src/http/logger';
import { createApi, json } from '../../src/http/route';
import { createRegistry, z } from '../../src/openapi/registry';
import { guard } from '../../src/http/guards';

// The per-request floor's cuts (docs/benchmarks.md) change how an answer is made, never what the client gets.

// Express's own ETag generators (express/lib/utils.js), the reference the app's must equal.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const expressUtils = require('express/lib/utils') as { wetag: (body: string | Buffer, encoding?: BufferEncoding) => string };

const BODIES: Array<string | Buffer> = [
  '',
  '{"status":"ok"}',
  JSON.stringify({ name: 'سارة', note: 'é ✓ 😀' }),
  'x'.repeat(70_000),
  Buffer.from([0, 1, 2, 255]),
];

describe('weakEtag', () => {
  it.each(BODIES.map((b, i) => [i, b]))('equals Express default weak ETag (body %i)', (_i, body) => {
    expect(weakEtag(body)).toBe(expressUtils.wetag(body));
    if (typeof body === 'string') expect(weakEtag(body, 'utf8')).toBe(expressUtils.wetag(body, 'utf8'));
  });
});

describe('a JSON answer', () => {
  const Thing = z.object({ name: z.string(), n: z.number() });
  const BODY = { name: 'سارة ✓', n: 1 };

  /** The app's way (route.ts sendJson, the app's ETag function) next to plain res.json on Express's defaults. */
  function apps() {
    const api = createApi({
      registry: createRegistry(),
      guards: () => (_req, _res, next) => next(),
      rateLimit: (_req, _res, next) => next(),
    });
    api.define(
      { method: 'get', path: '/thing', tag: 'T', guard: guard.public, rateLimit: false, summary: 's', response: json(Thing), errors: [] },
      () => BODY,
    );
    const ours = express().set('etag', weakEtag).use(api.router);
    const plain = express().get('/thing', (_req, res) => void res.json(BODY));
    return { ours, plain };
  }

  const WIRE = ['content-type', 'content-length', 'etag'];
  const wire = (res: request.Response) => ({
    status: res.status,
    text: res.text,
    ...Object.fromEntries(WIRE.map((h) => [h, res.headers[h]])),
  });

  it('is what res.json sends: status, bytes, Content-Type, Content-Length, ETag', async () => {
    const { ours, plain } = apps();
    const [a, b] = await Promise.all([request(ours).get('/thing'), request(plain).get('/thing')]);
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(a.text)).toEqual(BODY);
    expect(wire(a)).toEqual(wire(b));
  });

  it('answers 304 to its own ETag and HEAD without a body, as res.json does', async () => {
    const { ours, plain } = apps();
    const etag = (await request(ours).get('/thing')).headers.etag;
    const [a, b] = await Promise.all([
      request(ours).get('/thing').set('If-None-Match', etag),
      request(plain).get('/thing').set('If-None-Match', etag),
    ]);
    expect(a.status).toBe(304);
    expect(wire(a)).toEqual(wire(b));
    const [ha, hb] = await Promise.all([request(ours).head('/thing'), request(plain).head('/thing')]);
    expect(ha.status).toBe(200);
    expect(ha.text ?? '').toBe('');
    expect(wire(ha)).toEqual(wire(hb));
  });
});

describe('the asynchronous log destination', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'log-destination-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every line whole and in order, short, multi-byte and longer than one write', async () => {
    const file = path.join(dir, 'api.log');
    const destination = asyncDestination(file) as ReturnType<typeof asyncDestination> & {
      end(): void;
      once(e: string, f: () => void): void;
    };
    const logger = createLogger('info', destination);
    const sent = Array.from({ length: 3_000 }, (_, i) =>
      i % 500 === 7 ? 'long '.repeat(2_000) + i : i % 3 === 0 ? `سطر ${i} ✓` : `line ${i}`,
    );
    for (const msg of sent) logger.info(msg);
    await new Promise<void>((resolve) => {
      destination.once('close', resolve);
      destination.end();
    });
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(sent);
  });
});
