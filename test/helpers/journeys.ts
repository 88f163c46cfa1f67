// Consumer journeys as a mobile client walks them against a running stack (sign up, create an
// activation, verify identity, pay by card), each answer recorded, for the fault matrix
// (test/e2e/fault-matrix.test.ts). The client does not retry a refusal; it waits and repeats a request
// only where the answer says to (503 with Retry-After: nothing happened) or none came (connection refused).
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DEMO } from '../../src/catalog/demo-seed';
import { demoIccid, digits } from '../../src/cli/demo-steps';
import { CONSENTS } from './app';
import { lastCode } from './processes';

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
  const journey: Journey = { phone: `+9665${digits(8)}`, refused: [], waited: 0, trail: [] };
  const patienceMs = opts.patienceMs ?? 120_000;

  async function call<T>(step: string, method: string, route: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
    const until = Date.now() + patienceMs;
    for (;;) {
      let res: Response;
      try {
        res = await fetch(`${opts.baseUrl()}${route}`, {
          method,
          headers: {
            'content-type': 'application/json',
            'x-client-type': 'mobile',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify(body),
        });
      } catch (err) {
        journey.trail.push(`${step} no answer`);
        if (Date.now() > until) throw err;
        journey.waited += 1;
        await sleep(500);
        continue;
      }
      const parsed = (await res.json()) as T & { error?: { code: string } };
      journey.trail.push(`${step} ${res.status}`);
      if (res.status === 503 && Date.now() < until) {
        journey.waited += 1;
        await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
        continue;
      }
      if (res.status >= 300) journey.refused.push({ step, status: res.status, code: parsed.error?.code });
      return { status: res.status, body: parsed };
    }
  }

  const registered = await call('register', 'POST', '/auth/register', { phone: journey.phone, name: 'Fault Journey', consents: CONSENTS });
  if (registered.status !== 201) return journey;
  const signedIn = await call<{ session: { token: string } }>('verify-otp', 'POST', '/auth/verify-otp', {
    phone: journey.phone,
    otp: lastCode(opts.messagesFile, journey.phone),
  });
  if (signedIn.status !== 200) return journey;
  const token = signedIn.body.session.token;
  const created = await call<{ activationId: string; orderId: string }>(
    'create',
    'POST',
    '/activations',
    { iccid: demoIccid(), packageId: DEMO.packages.starter },
    token,
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
    token,
  );
  if (verified.status === 200) journey.transId = verified.body.transId;
  await call(
    'pay',
    'POST',
    '/payments/create-intent',
    { orderId: journey.orderId, method: 'card_scheme_1', idempotencyKey: `fault-${randomUUID()}` },
    token,
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
    catchUpMs: lastActivated - clearedAt,
    details: [
      ...journeys.flatMap((j) => j.refused.map((r) => `${r.step} ${r.status} ${r.code ?? ''} (${j.trail.join(', ')})`)),
      ...journeys
        .filter((j) => byId.get(j.activationId ?? '')?.status !== 'activated')
        .map((j) => `stuck: ${byId.get(j.activationId ?? '')?.status ?? 'no activation'}`),
    ],
  };
}
