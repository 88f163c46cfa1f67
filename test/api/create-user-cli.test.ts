import request from 'supertest';
import type { z } from 'zod';
import type { SessionResponse, SignInResponse } from '../../src/auth/schemas';
import { createUser, parseCreateUserArgs } from '../../src/cli/create-user';
import { createPersonalDataCipher } from '../../src/lib/crypto';
import { bearer, createTestApp, errorCode, lastCode, MOBILE, type TestApp } from '../helpers/app';
import { match } from '../helpers/match';
import { typed } from '../helpers/responses';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('create-user command', () => {
  it('creates a super_admin who can then sign in by OTP', async () => {
    const args = parseCreateUserArgs(['--role', 'super_admin', '--name', 'Ops', '--phone', '+966500000009']);
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    const created = await createUser(t.db.sql, cipher, args);
    expect(created).toEqual({ id: match.any(String), role: 'super_admin', name: 'Ops' });

    await request(t.app).post('/auth/login').send({ phone: '+966500000009' }).expect(200);
    const res = typed<z.infer<typeof SignInResponse>>(
      await request(t.app)
        .post('/auth/verify-otp')
        .set(MOBILE)
        .send({ phone: '+966500000009', otp: lastCode(t, '+966500000009') }),
    );
    expect(res.body.user).toMatchObject({ id: created.id, appRole: 'super_admin' });
    const session = typed<z.infer<typeof SessionResponse>>(await request(t.app).get('/auth/session').set(bearer(res.body.session.token!)));
    expect(session.body.user).toMatchObject({ appRole: 'super_admin', managedAreas: null });
  });

  it('gives an admin the areas named', async () => {
    const args = parseCreateUserArgs([
      '--role',
      'admin',
      '--name',
      'Areas',
      '--email',
      'Areas@Example.com',
      '--areas',
      'b2b,store',
      '--areas-write',
      'b2b',
    ]);
    const cipher = createPersonalDataCipher(t.config.DATA_ENCRYPTION_KEY, t.config.DATA_HASH_KEY);
    const { id } = await createUser(t.db.sql, cipher, args);
    const [row] = await t.db.query<{ managed_areas: string[]; managed_areas_write: string[] }>(
      'select managed_areas, managed_areas_write from users where id = $1',
      [id],
    );
    expect(row).toEqual({ managed_areas: ['b2b', 'store'], managed_areas_write: ['b2b'] });
  });

  it('refuses bad arguments with a readable message', () => {
    expect(() => parseCreateUserArgs(['--role', 'king', '--name', 'X'])).toThrow(/role/);
    expect(() => parseCreateUserArgs(['--role', 'support', '--name', 'X'])).toThrow(/--phone or --email/);
  });
});

it('PUT /auth/me requires a session', async () => {
  const res = await request(t.app).put('/auth/me').send({ name: 'X' });
  expect([res.status, errorCode(res)]).toEqual([401, 'AUTH_REQUIRED']);
});
