import type { Express } from 'express';
import request from 'supertest';
import type { z } from 'zod';
import type { OperatorListResponse } from '../../src/operators/schemas';
import { createTestApp, type TestApp } from '../helpers/app';
import { DEMO, ESIM_STORE_OPERATOR_ID, OPERATOR_API_BASE, OPERATOR_SECRET, seedCatalog } from '../helpers/read-app';
import { typed } from '../helpers/responses';

type Operators = z.infer<typeof OperatorListResponse>;

let t: TestApp;
let app: Express;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(() => t.close());

const ALPHA = '1a1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e';
const ZETA = '2a1f4a52-9a0e-4c1e-8f43-0f3b2a1c9d8e';

describe('GET /operators', () => {
  it('answers an empty list before any operator exists', async () => {
    const res = await request(app).get('/operators');
    expect([res.status, res.body]).toEqual([200, { data: [] }]);
  });

  it('lists telecom operators only, ordered by nameEn, with every list-view field and no secrets', async () => {
    await seedCatalog(t);
    await t.db.query(
      `insert into operators (id, slug, kind, name_en, name_ar, logo_url, is_active, api_base_url, api_config, created_at, updated_at)
       values ($1, 'alpha', 'telecom', 'Alpha Net', 'ألفا نت', 'https://cdn.example/alpha.png', true, $3, $4,
               '2026-01-02T03:04:05.678Z', '2026-02-03T04:05:06.789Z'),
              ($2, 'zeta', 'telecom', 'Zeta Mobile', 'زيتا موبايل', null, false, null, null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [ALPHA, ZETA, OPERATOR_API_BASE, JSON.stringify({ apiKey: OPERATOR_SECRET })],
    );
    const res = typed<Operators>(await request(app).get('/operators'));
    expect(res.status).toBe(200);
    const [mock] = await t.db.query<{ created_at: Date; updated_at: Date }>('select created_at, updated_at from operators where id = $1', [
      DEMO.operators.mock,
    ]);
    const [noEsim] = await t.db.query<{ created_at: Date; updated_at: Date }>(
      'select created_at, updated_at from operators where id = $1',
      [DEMO.operators.mockNoEsim],
    );
    const ms = (v: Date | string) => new Date(v).toISOString();
    expect(res.body).toEqual({
      data: [
        {
          id: ALPHA,
          slug: 'alpha',
          nameEn: 'Alpha Net',
          nameAr: 'ألفا نت',
          logoUrl: 'https://cdn.example/alpha.png',
          packageCount: 0,
          supportsEsim: false,
          createdAt: '2026-01-02T03:04:05.678Z',
          updatedAt: '2026-02-03T04:05:06.789Z',
        },
        {
          id: DEMO.operators.mock,
          slug: 'mock',
          nameEn: 'Mock Telecom',
          nameAr: 'الاتصالات التجريبية',
          logoUrl: null,
          packageCount: 0,
          supportsEsim: true,
          createdAt: ms(mock.created_at),
          updatedAt: ms(mock.updated_at),
        },
        {
          id: DEMO.operators.mockNoEsim,
          slug: 'mock-noesim',
          nameEn: 'Mock Telecom (no eSIM)',
          nameAr: 'الاتصالات التجريبية (بدون شريحة إلكترونية)',
          logoUrl: null,
          packageCount: 0,
          supportsEsim: false,
          createdAt: ms(noEsim.created_at),
          updatedAt: ms(noEsim.updated_at),
        },
        {
          id: ZETA,
          slug: 'zeta',
          nameEn: 'Zeta Mobile',
          nameAr: 'زيتا موبايل',
          logoUrl: null,
          packageCount: 0,
          supportsEsim: false,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    for (const item of res.body.data) expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(ESIM_STORE_OPERATOR_ID);
    for (const secret of [OPERATOR_SECRET, OPERATOR_API_BASE, 'apiConfig', 'apiBaseUrl', 'kind', 'isActive', 'esim-store-1']) {
      expect(text).not.toContain(secret);
    }
  });

  it('is public: no session needed, and a bad token does not matter', async () => {
    const res = typed<Operators>(await request(app).get('/operators').set('Authorization', 'Bearer not-a-token'));
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });

  it('answers Arabic and English names whatever the Accept-Language', async () => {
    const res = typed<Operators>(await request(app).get('/operators').set('Accept-Language', 'ar'));
    for (const item of res.body.data) expect([typeof item.nameEn, typeof item.nameAr]).toEqual(['string', 'string']);
  });
});
