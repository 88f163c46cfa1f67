// Consumer journeys as a mobile client walks them against a running stack (sign up, create an
// activation, verify identity, pay by card), each answer recorded, for the fault matrix
// (test/e2e/fault-matrix.test.ts). The client does not retry a refusal; it waits and repeats a request
// only where the answer says to (503 with Retry-After: nothing happened) or none came (connection refused
// or reset: the API was killed). A repeat of a request that did happen gets the spec's answer to a repeat
// (the phone registered, the code used: sign in anew; a keyed create: the first answer), counted as
// `recovered`; a provider that did not answer in time (OPERATOR_TIMEOUT, IDENTITY_ERROR: nothing
// happened) is tried again 2 s later, counted as `later`.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DEMO } from '../../src/catalog/demo-seed';
import { demoIccid, digits } from '../../src/cli/demo-steps';
import { CONSENTS } from './app';
import { codeOf, newCode } from './processes';

export interface Answer {
  step: string;
  status: number;
  code?: string;
}

export interface Journey {
  phone: string;
  activationId?: string;
  orderId?: string;
  /** verify-identity's answer: the transaction the run must poll. */
  transId?: string;
  /** Answers that were not the step's success (a 503 later repeated is not one). */
  refused: Answer[];
  /** 503s and connection errors the client waited out. */
  waited: number;
  /** Refusals the spec gives a repeat of a request whose answer was lost (the client then signs in anew). */
  recovered: number;
  /** Answers that a provider did not answer in time (nothing happened; the client tried again later). */
  later: number;
  /** Every answer in order (`step status`), for a refusal's story. */
  trail: string[];
}

export interface JourneyOptions {
  baseUrl: () => string;
  messagesFile: string;
  /** The longest a step may keep waiting out 503s and refused connections. */
  patienceMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One consumer from sign-up to a paid order with a verification started; the run does the rest. */
export async function consumerJourney(opts: JourneyOptions): Promise<Journey> {
  const journey: Journey = { phone: `+9665${digits(8)}`, refused: [], waited: 0, recovered: 0, later: 0, trail: [] };
  const patienceMs = opts.patienceMs ?? 120_000;

  /**
   * One request, repeated while the answer says nothing happened (503) or none came. `after` names what
   * the client does with an answer that follows a lost one: a refusal the spec gives a repeat of a request
   * that did happen (the phone registered, the code used) is the client's cue to recover, not a refusal.
   */
  async function call<T>(
    step: string,
    method: string,
    route: string,
    body: unknown,
    extra: { token?: string; headers?: Record<string, string>; repeatRefusal?: string; laterOn?: string[] } = {},
  ): Promise<{ status: number; body: T; repeated: boolean }> {
    const until = Date.now() + patienceMs;
    let lost = false;
    for (;;) {
      let res: Response;
      let parsed: T & { error?: { code: string } };
      try {
        res = await fetch(`${opts.baseUrl()}${route}`, {
          method,
          headers: {
            'content-type': 'application/json',
            'x-client-type': 'mobile',
            ...(extra.token ? { authorization: `Bearer ${extra.token}` } : {}),
            ...extra.headers,
          },
          body: JSON.stringify(body),
        });
        parsed = (await res.json()) as T & { error?: { code: string } };
      } catch (err) {
        journey.trail.push(`${step} no answer`);
        if (Date.now() > until) throw err;
        lost = true;
        journey.waited += 1;
        await sleep(500);
        continue;
      }
      journey.trail.push(`${step} ${res.status}`);
      if (res.status === 503 && Date.now() < until) {
        journey.waited += 1;
        await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
        continue;
      }
      // A provider that did not answer: nothing happened, and the app offers to try again in a moment.
      if (parsed.error && extra.laterOn?.includes(parsed.error.code) && Date.now() < until) {
        journey.later += 1;
        await sleep(2_000);
        continue;
      }
      const repeated = lost && !!extra.repeatRefusal && parsed.error?.code === extra.repeatRefusal;
      if (repeated) journey.recovered += 1;
      else if (res.status >= 300) journey.refused.push({ step, status: res.status, code: parsed.error?.code });
      return { status: res.status, body: parsed, repeated };
    }
  }

  type Asked = 'sent' | 'repeated' | 'refused';
  /** Signs in with the code `ask` had sent; a repeat refused as done (the phone registered, the code used) asks anew by login. */
  async function signIn(ask: () => Promise<Asked>): Promise<string | undefined> {
    const before = codeOf(opts.messagesFile, journey.phone);
    const asked = await ask();
    if (asked === 'repeated') return signIn(login);
    if (asked === 'refused') return undefined;
    const otp = await newCode(opts.messagesFile, journey.phone, before);
    const signedIn = await call<{ session: { token: string } }>(
      'verify-otp',
      'POST',
      '/auth/verify-otp',
      { phone: journey.phone, otp },
      { repeatRefusal: 'AUTH_INVALID_OTP' },
    );
    if (signedIn.repeated) return signIn(login);
    return signedIn.status === 200 ? signedIn.body.session.token : undefined;
  }
  const asked = (answer: { status: number; repeated: boolean }, ok: number): Asked =>
    answer.repeated ? 'repeated' : answer.status === ok ? 'sent' : 'refused';
  const login = async () => asked(await call('login', 'POST', '/auth/login', { phone: journey.phone }), 200);
  const register = async () =>
    asked(
      await call(
        'register',
        'POST',
        '/auth/register',
        { phone: journey.phone, name: 'Fault Journey', consents: CONSENTS },
        { repeatRefusal: 'AUTH_PHONE_EXISTS' },
      ),
      201,
    );

  const token = await signIn(register);
  if (!token) return journey;
  // The key makes a repeat after a lost answer the same create (the serial would be in use otherwise).
  const created = await call<{ activationId: string; orderId: string }>(
    'create',
    'POST',
    '/activations',
    { iccid: demoIccid(), packageId: DEMO.packages.starter },
    { token, headers: { 'idempotency-key': `create-${randomUUID()}` }, laterOn: ['OPERATOR_TIMEOUT', 'OPERATOR_UNAVAILABLE'] },
  );
  if (created.status !== 201) return journey;
  journey.activationId = created.body.activationId;
  journey.orderId = created.body.orderId;
  // A new person each time (SIM limits count per id number), ending in 0: the mock provider completes it.
  const verified = await call<{ transId: string }>(
    'verify-identity',
    'POST',
    `/activations/${journey.activationId}/verify-identity`,
    { identityType: 'citizen', idNumber: `1${digits(8)}0` },
    { token, laterOn: ['IDENTITY_ERROR'] },
  );
  if (verified.status === 200) journey.transId = verified.body.transId;
  await call(
    'pay',
    'POST',
    '/payments/create-intent',
    { orderId: journey.orderId, method: 'card_scheme_1', idempotencyKey: `fault-${randomUUID()}` },
    { token },
  );
  return journey;
}

/** Journeys started `gapMs` apart; `during` runs beside them (the fault). */
export async function burst(n: number, gapMs: number, opts: JourneyOptions, during: () => Promise<void> = () => Promise.resolve()) {
  const fault = during();
  const journeys = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await sleep(i * gapMs);
      return consumerJourney(opts);
    }),
  );
  await fault;
  return journeys;
}

export interface MatrixCounts {
  journeys: number;
  refused: number;
  /** Journeys whose activation did not end `activated` by the deadline. */
  stuck: number;
  /** Orders with more than one completed payment. */
  paidTwice: number;
  /** verify-identity answered 200 but the activation records another verification, or none. */
  untrue: number;
  /** 503s and refused connections the clients waited out. */
  waited: number;
  /** Lost answers the clients recovered from as the spec lets them (signed in anew). */
  recovered: number;
  /** Provider timeouts the spec answers (OPERATOR_TIMEOUT, IDENTITY_ERROR): nothing happened, tried again later. */
  later: number;
  /** From the fault's end to the last activation caught up. */
  catchUpMs: number;
  /** Each refusal as `step status code`, and each stuck activation's status. */
  details: string[];
}

/** Waits until every journey's activation is final (or the deadline), then counts what the matrix checks. */
export async function settle(pool: Pool, journeys: Journey[], clearedAt: number, deadlineMs = 120_000): Promise<MatrixCounts> {
  const ids = journeys.map((j) => j.activationId).filter((id): id is string => !!id);
  const until = Date.now() + deadlineMs;
  let lastActivated = clearedAt;
  for (;;) {
    const { rows } = await pool.query<{ pending: number; newest: Date | null }>(
      `select count(*) filter (where status not in ('activated', 'failed', 'cancelled'))::int as pending,
              max(activated_at) as newest
         from activations where id = any($1::uuid[])`,
      [ids],
    );
    if (rows[0].newest) lastActivated = Math.max(clearedAt, rows[0].newest.getTime());
    if (rows[0].pending === 0 || Date.now() > until) break;
    await sleep(500);
  }
  const { rows: finals } = await pool.query<{ id: string; status: string; identity_ref: string | null }>(
    `select id, status, identity_ref from activations where id = any($1::uuid[])`,
    [ids],
  );
  const byId = new Map(finals.map((r) => [r.id, r]));
  const { rows: twice } = await pool.query<{ n: number }>(
    `select count(*)::int as n from (select order_id from payments where status = 'completed' and order_id = any($1::uuid[])
       group by order_id having count(*) > 1) d`,
    [journeys.map((j) => j.orderId).filter(Boolean)],
  );
  return {
    journeys: journeys.length,
    refused: journeys.reduce((n, j) => n + j.refused.length, 0),
    stuck: journeys.filter((j) => byId.get(j.activationId ?? '')?.status !== 'activated').length,
    paidTwice: twice[0].n,
    untrue: journeys.filter((j) => j.transId && byId.get(j.activationId!)?.identity_ref !== j.transId).length,
    waited: journeys.reduce((n, j) => n + j.waited, 0),
    recovered: journeys.reduce((n, j) => n + j.recovered, 0),
    later: journeys.reduce((n, j) => n + j.later, 0),
    catchUpMs: lastActivated - clearedAt,
    details: [
      ...journeys.flatMap((j) => j.refused.map((r) => `${r.step} ${r.status} ${r.code ?? ''} (${j.trail.join(', ')})`)),
      ...journeys
        .filter((j) => byId.get(j.activationId ?? '')?.status !== 'activated')
        .map((j) => `stuck: ${byId.get(j.activationId ?? '')?.status ?? 'no activation'}`),
    ],
  };
}
