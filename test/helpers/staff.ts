import { createTestApp, signUp, type TestApp } from './app';

/** A signed-in user: the bearer token and the user id. */
export interface SignedIn {
  token: string;
  userId: string;
}

/** Signs a new phone user up on `t` and makes them super_admin by SQL (no route grants that role). */
export async function signUpSuperAdmin(t: TestApp, name: string): Promise<SignedIn> {
  const user = await signUp(t, { name });
  await t.db.query(`update users set app_role = 'super_admin' where id = $1`, [user.userId]);
  return { token: user.token, userId: user.userId };
}

/** A test file's app with a signed-in super_admin (`admin`). */
export interface StaffTestApp extends TestApp {
  admin: SignedIn;
}

/**
 * The test file's app and its super_admin: created before the file's tests (beforeAll) and closed after
 * them (afterAll). Its fields are read inside tests and hooks, once beforeAll has run.
 */
export function superAdminApp(name = 'Root'): StaffTestApp {
  let made: StaffTestApp | undefined;
  const ready = (): StaffTestApp => {
    if (!made) throw new Error('superAdminApp() is read before its beforeAll ran');
    return made;
  };
  beforeAll(async () => {
    const t = await createTestApp();
    made = { ...t, admin: await signUpSuperAdmin(t, name) };
  });
  afterAll(() => made?.close());
  return {
    get app() {
      return ready().app;
    },
    get db() {
      return ready().db;
    },
    get clock() {
      return ready().clock;
    },
    get config() {
      return ready().config;
    },
    get messages() {
      return ready().messages;
    },
    get logLines() {
      return ready().logLines;
    },
    get admin() {
      return ready().admin;
    },
    close: () => ready().close(),
  };
}
