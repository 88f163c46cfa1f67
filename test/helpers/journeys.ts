// The fault matrix's clients (test/e2e/fault-matrix.test.ts), each walk's answers recorded, against a
// running stack: consumer journeys (sign up, create an activation, verify identity, pay by card), eSIM
// store orders (sign up by e-mail, acknowledge the device, order, pay by card) and company seats (redeem
// the invitation link, consents, the activation the company pays, verify identity). One client rule for
// all (`call`): it does not retry a refusal; it waits and repeats a request only where the answer says to
// (503 with Retry-After: nothing happened) or none came (connection refused or reset: the API was killed).
// A repeat of a request that did happen gets the spec's answer to a repeat (the phone registered, the code
// or the link used: sign in anew by code; a keyed create: the first answer; verify-identity once the
// activation left `pending`: read the identity's status), counted as `recovered`; a
// provider that did not answer in time (OPERATOR_TIMEOUT, IDENTITY_ERROR: nothing happened) is tried
// again 2 s later, counted as `later`. Each kind settles into the same counts (MatrixCounts).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { DEMO } from '../../src/catalog/demo-seed';
import { demoIccid, digits } from '../../src/cli/demo-steps';
import { storeOrderWorkflowId } from '../../workflows/contracts/store-order-contract';
import { CONSENTS } from './app';
import { codeOf, newCode } from './processes';

export interface Answer {
  step: string;
  status: number;
  code?: string;
}

/** What every walk records. */
export interface Walk {
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

/** What an activation walk learns: its activation and order (the create's 201), the verification's transaction. */
export interface ActivationWalk extends Walk {
  activationId?: string;
  orderId?: string;
  /** verify-identity's answer: the transaction the run must poll. */
  transId?: string;
}

export interface Journey extends ActivationWalk {
  phone: string;
}

export interface StoreJourney extends Walk {
  /** The buyer's (one order each): the QR e-mail goes there. */
  email: string;
  userId?: string;
  productId: string;
  orderId?: string;
  /** The payment answer's: the payment it named and the status it told. */
  paymentId?: string;
  paymentStatus?: string;
}

/** A staged staff member as the test knows them: the phone the invitation SMS went to, and its link's token. */
export interface Staff {
  phone: string;
  linkToken: string;
  /** The seat's package (the contract line's), for a person who signs in by code after a lost redemption. */
  packageId: string;
}

export interface SeatJourney extends ActivationWalk {
  phone: string;
  /** The redemption's answer: who the link signed in. */
  userId?: string;
}

export interface JourneyOptions {
  baseUrl: () => string;
  messagesFile: string;
  /** The longest a step may keep waiting out 503s and refused connections. */
  patienceMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walk = (): Walk => ({ refused: [], waited: 0, recovered: 0, later: 0, trail: [] });

/** How a call is made and read: the session, headers, and which answers are not refusals. */
export interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
  /** The spec's answer to a repeat of this request when it did happen: after a lost answer, the cue to recover. */
  repeatRefusal?: string;
  /** A provider's "try again" (nothing happened): repeated 2 s later. */
  laterOn?: string[];
}

/**
 * One request as the matrix's mobile client makes it: repeated after a 503's Retry-After, when no answer
 * came, or on a provider's "try again" (until the step's patience runs out); any other answer is final,
 * and one that is not a success is recorded as a refusal, except the spec's answer to a repeat of a
 * request whose answer was lost (`repeated`: the caller recovers).
 */
export async function call<T>(
  w: Walk,
  opts: JourneyOptions,
  step: string,
  method: string,
  route: string,
  body: unknown,
  how: CallOptions = {},
): Promise<{ status: number; body: T; repeated: boolean }> {
  const until = Date.now() + (opts.patienceMs ?? 120_000);
  let lost = false;
  for (;;) {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${opts.baseUrl()}${route}`, {
        method,
        headers: {
          'content-type': 'application/json',
          'x-client-type': 'mobile',
          ...(how.token ? { authorization: `Bearer ${how.token}` } : {}),
          ...how.headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // A body cut off mid-read is no answer either.
      text = await res.text();
    } catch (err) {
      w.trail.push(`${step} no answer`);
      if (Date.now() > until) throw err;
      lost = true;
      w.waited += 1;
      await sleep(500);
      continue;
    }
    let parsed: T & { error?: { code: string } };
    let json = true;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      json = false;
      parsed = { error: { code: 'NOT_JSON' } } as typeof parsed;
    }
    w.trail.push(`${step} ${res.status}`);
    if (res.status === 503 && Date.now() < until) {
      // Nothing happened, but for one instant: Postgres lost during the COMMIT itself, which it may have
      // applied (docs/decisions/operations.md). Its repeat then gets the spec's answer to a repeat.
      lost = true;
      w.waited += 1;
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
      continue;
    }
    const code = parsed.error?.code;
    // After a lost answer, the spec's answer to a repeat of a request that did happen comes first.
    if (lost && code && code === how.repeatRefusal) {
      w.recovered += 1;
      return { status: res.status, body: parsed, repeated: true };
    }
    if (code && how.laterOn?.includes(code) && Date.now() < until) {
      w.later += 1;
      await sleep(2_000);
      continue;
    }
    if (res.status >= 300 || !json) {
      w.refused.push({ step, status: res.status, code });
      // An answer the client cannot read ends the walk like a refusal.
      return { status: json ? res.status : 502, body: parsed, repeated: false };
    }
    return { status: res.status, body: parsed, repeated: false };
  }
}

/** Who signs in by code: a phone or an e-mail address (where the codes go). */
type Identifier = { phone: string } | { email: string };
const addressOf = (id: Identifier) => ('phone' in id ? id.phone : id.email);

/**
 * Signs up (or, after a lost answer whose registration stood, in) by code: the code sent after the
 * request; a code a lost answer used asks for a new one by login. Answers the session, or none.
 */
async function signUpByCode(w: Walk, opts: JourneyOptions, id: Identifier, name: string) {
  type Asked = 'sent' | 'repeated' | 'refused';
  const asked = (answer: { status: number; repeated: boolean }, ok: number): Asked =>
    answer.repeated ? 'repeated' : answer.status === ok ? 'sent' : 'refused';
  const register = async () =>
    asked(
      await call(
        w,
        opts,
        'register',
        'POST',
        '/auth/register',
        { ...id, name, consents: CONSENTS },
        {
          repeatRefusal: 'phone' in id ? 'AUTH_PHONE_EXISTS' : 'AUTH_EMAIL_EXISTS',
        },
      ),
      201,
    );
  const login = async () => asked(await call(w, opts, 'login', 'POST', '/auth/login', id), 200);
  return signInWith(w, opts, id, register, login);
}

async function signInWith(
  w: Walk,
  opts: JourneyOptions,
  id: Identifier,
  ask: () => Promise<'sent' | 'repeated' | 'refused'>,
  login: () => Promise<'sent' | 'repeated' | 'refused'>,
): Promise<{ token: string; userId: string } | undefined> {
  const before = codeOf(opts.messagesFile, addressOf(id));
  const asked = await ask();
  if (asked === 'repeated') return signInWith(w, opts, id, login, login);
  if (asked === 'refused') return undefined;
  const otp = await newCode(opts.messagesFile, addressOf(id), before);
  const signedIn = await call<{ user: { id: string }; session: { token: string } }>(
    w,
    opts,
    'verify-otp',
    'POST',
    '/auth/verify-otp',
    { ...id, otp },
    { repeatRefusal: 'AUTH_INVALID_OTP' },
  );
  if (signedIn.repeated) return signInWith(w, opts, id, login, login);
  return signedIn.status === 200 ? { token: signedIn.body.session.token, userId: signedIn.body.user.id } : undefined;
}

/**
 * Creates the activation (keyed: a repeat after a lost answer is the same create) and starts its identity
 * check; false when the create was refused. A new person each time (SIM limits count per id number),
 * ending in 0: the providers complete it.
 */
async function activateAndVerify(w: ActivationWalk, opts: JourneyOptions, token: string, packageId: string | null): Promise<boolean> {
  const created = await call<{ activationId: string; orderId: string }>(
    w,
    opts,
    'create',
    'POST',
    '/activations',
    { iccid: demoIccid(), packageId },
    { token, headers: createKey(), laterOn: OPERATOR_LATER },
  );
  if (created.status !== 201) return false;
  const { activationId, orderId } = created.body;
  Object.assign(w, { activationId, orderId });
  const verified = await call<{ transId: string }>(
    w,
    opts,
    'verify-identity',
    'POST',
    `/activations/${activationId}/verify-identity`,
    { identityType: 'citizen', idNumber: `1${digits(8)}0` },
    { token, laterOn: ['IDENTITY_ERROR'], repeatRefusal: 'IDENTITY_ERROR' },
  );
  if (verified.status === 200) w.transId = verified.body.transId;
  if (verified.repeated) await identityAfterLostAnswer(w, opts, activationId, token);
  return true;
}

/**
 * verify-identity repeated after a lost answer and refused: the spec's answer once the activation left
 * `pending` (a seat's order is paid, so a verified seat moves on at once). The app reads the identity's
 * status instead; a verification that never started is a refusal.
 */
async function identityAfterLostAnswer(w: Walk, opts: JourneyOptions, activationId: string, token: string): Promise<void> {
  const read = await call<{ status: string }>(
    w,
    opts,
    'identity-status',
    'GET',
    `/activations/${activationId}/verify-identity`,
    undefined,
    {
      token,
    },
  );
  // `waiting` is also where a verification that never started sits: the settle's `stuck` tells them apart.
  if (read.status !== 200 || !['waiting', 'completed'].includes(read.body.status)) {
    w.refused.push({ step: 'verify-identity', status: 422, code: 'IDENTITY_ERROR' });
  }
}

/** A create's key: a repeat after a lost answer is the same create (ours, optional: see docs/decisions/activations.md). */
const createKey = () => ({ 'idempotency-key': `create-${randomUUID()}` });
const OPERATOR_LATER = ['OPERATOR_TIMEOUT', 'OPERATOR_UNAVAILABLE'];

/** One consumer from sign-up to a paid order with a verification started; the run does the rest. */
export async function consumerJourney(opts: JourneyOptions): Promise<Journey> {
  const journey: Journey = { phone: `+9665${digits(8)}`, ...walk() };
  const session = await signUpByCode(journey, opts, { phone: journey.phone }, 'Fault Journey');
  if (!session) return journey;
  const { token } = session;
  if (!(await activateAndVerify(journey, opts, token, DEMO.packages.starter))) return journey;
  await call(
    journey,
    opts,
    'pay',
    'POST',
    '/payments/create-intent',
    { orderId: journey.orderId, method: 'card_scheme_1', idempotencyKey: `fault-${randomUUID()}` },
    { token },
  );
  return journey;
}

/** One buyer's eSIM store order of `productId`, from sign-up (by e-mail) to paid by card; the order's run places it. */
export async function storeOrderJourney(opts: JourneyOptions, productId: string): Promise<StoreJourney> {
  const j: StoreJourney = { email: `fault-${randomUUID().slice(0, 12)}@example.com`, productId, ...walk() };
  const session = await signUpByCode(j, opts, { email: j.email }, 'Fault Buyer');
  if (!session) return j;
  j.userId = session.userId;
  const { token } = session;
  const ack = await call<{ data: { id: string } }>(
    j,
    opts,
    'device-ack',
    'POST',
    '/store/device-acknowledgements',
    { deviceModel: 'Fault Phone', esimCompatible: true, carrierUnlocked: true },
    { token },
  );
  if (ack.status !== 201) return j;
  const ordered = await call<{ data: { id: string } }>(
    j,
    opts,
    'order',
    'POST',
    '/store/orders',
    { productId, deviceAcknowledgementId: ack.body.data.id },
    { token, headers: createKey() },
  );
  if (ordered.status !== 201) return j;
  j.orderId = ordered.body.data.id;
  const paid = await call<{ paymentId: string; status: string }>(
    j,
    opts,
    'pay',
    'POST',
    '/payments/create-intent',
    { orderId: j.orderId, method: 'card_scheme_1', idempotencyKey: `fault-${randomUUID()}` },
    { token },
  );
  if (paid.status === 201) {
    j.paymentId = paid.body.paymentId;
    j.paymentStatus = paid.body.status;
  }
  return j;
}

/**
 * A staged staff member opens their invitation link: signed in, consents, the activation the company
 * pays, identity. A link a lost answer redeemed is spent (MAGIC_LINK_ALREADY_USED): the person signs in
 * by code instead, records the consents and activates the seat's package.
 */
export async function seatJourney(opts: JourneyOptions, staff: Staff): Promise<SeatJourney> {
  const j: SeatJourney = { phone: staff.phone, ...walk() };
  const redeemed = await call<{
    user: { id: string };
    session: { token: string };
    b2b: { packageId: string | null; consentsRequired: string[] };
  }>(j, opts, 'magic-link', 'POST', '/auth/magic-link', { token: staff.linkToken }, { repeatRefusal: 'MAGIC_LINK_ALREADY_USED' });
  let session: { token: string; userId: string } | undefined;
  let packageId: string | null = staff.packageId;
  let consents = true;
  if (redeemed.repeated) {
    const login = async () => {
      const answer = await call(j, opts, 'login', 'POST', '/auth/login', { phone: j.phone });
      return answer.status === 200 ? ('sent' as const) : ('refused' as const);
    };
    session = await signInWith(j, opts, { phone: j.phone }, login, login);
  } else if (redeemed.status === 200) {
    session = { token: redeemed.body.session.token, userId: redeemed.body.user.id };
    packageId = redeemed.body.b2b.packageId;
    consents = redeemed.body.b2b.consentsRequired.length > 0;
  }
  if (!session) return j;
  j.userId = session.userId;
  const { token } = session;
  if (consents) {
    const consented = await call(j, opts, 'consents', 'POST', '/auth/consents', { consents: CONSENTS }, { token });
    if (consented.status >= 300) return j;
  }
  await activateAndVerify(j, opts, token, packageId);
  return j;
}

/** Starts each of `starts` `gapMs` after the one before, beside `during` (the fault); resolves with every result once both end. */
async function spaced<T>(starts: Array<() => Promise<T>>, gapMs: number, during: () => Promise<void>): Promise<T[]> {
  const fault = during();
  const results = await Promise.all(
    starts.map(async (start, i) => {
      await sleep(i * gapMs);
      return start();
    }),
  );
  await fault;
  return results;
}

/** Consumer journeys started `gapMs` apart; `during` runs beside them (the fault). */
export function burst(n: number, gapMs: number, opts: JourneyOptions, during: () => Promise<void> = () => Promise.resolve()) {
  return spaced(
    Array.from({ length: n }, () => () => consumerJourney(opts)),
    gapMs,
    during,
  );
}

/** What one fault's burst starts: consumer journeys, store orders (a product each), company seats (a staff member each). */
export interface MixedPlan {
  consumers: number;
  storeProducts: string[];
  seats: Staff[];
}

export interface MixedWalks {
  consumers: Journey[];
  storeOrders: StoreJourney[];
  seats: SeatJourney[];
}

/**
 * The three kinds interleaved, one start every `gapMs` beside `during`: each kind's walks spread evenly
 * over the burst (the i-th of n at (i + ½) / n of it), so the few seats start early, mid-burst and late
 * like the rest, not all at its beginning.
 */
export async function mixedBurst(
  plan: MixedPlan,
  gapMs: number,
  opts: JourneyOptions,
  during: () => Promise<void> = () => Promise.resolve(),
): Promise<MixedWalks> {
  const walks: MixedWalks = { consumers: [], storeOrders: [], seats: [] };
  const at = (i: number, n: number) => (i + 0.5) / n;
  const starts = [
    ...Array.from({ length: plan.consumers }, (_, i) => ({
      at: at(i, plan.consumers),
      start: async () => void walks.consumers.push(await consumerJourney(opts)),
    })),
    ...plan.storeProducts.map((product, i, all) => ({
      at: at(i, all.length),
      start: async () => void walks.storeOrders.push(await storeOrderJourney(opts, product)),
    })),
    ...plan.seats.map((staff, i, all) => ({
      at: at(i, all.length),
      start: async () => void walks.seats.push(await seatJourney(opts, staff)),
    })),
  ].sort((a, b) => a.at - b.at);
  await spaced(
    starts.map((s) => s.start),
    gapMs,
    during,
  );
  return walks;
}

export interface MatrixCounts {
  /** Walks of this kind (consumer journeys, store orders, company seats). */
  journeys: number;
  refused: number;
  /** Walks whose activation did not end `activated` (store: whose order did not end `issued`) by the deadline. */
  stuck: number;
  /** Orders with more than one completed payment (seats: people the company paid for more than once). */
  paidTwice: number;
  /** Success answers the records contradict (see each settle). */
  untrue: number;
  /** Store orders only: issued orders whose QR e-mail or placement did not happen exactly once. */
  notOnce?: number;
  /** 503s and refused connections the clients waited out. */
  waited: number;
  /** Lost answers the clients recovered from as the spec lets them (signed in anew). */
  recovered: number;
  /** Provider timeouts the spec answers (OPERATOR_TIMEOUT, IDENTITY_ERROR): nothing happened, tried again later. */
  later: number;
  /** From the fault's end to the last activation caught up (store: the last order issued). */
  catchUpMs: number;
  /** Each refusal as `step status code`, and each stuck walk's status. */
  details: string[];
}

const refusedCount = (walks: Walk[]) => walks.reduce((n, w) => n + w.refused.length, 0);
const waitedCount = (walks: Walk[]) => walks.reduce((n, w) => n + w.waited, 0);
/** What every kind counts of its walks' answers. */
const answerCounts = (walks: Walk[]) => ({
  refused: refusedCount(walks),
  waited: waitedCount(walks),
  recovered: walks.reduce((n, w) => n + w.recovered, 0),
  later: walks.reduce((n, w) => n + w.later, 0),
});
const refusalDetails = (walks: Walk[]) =>
  walks.flatMap((w) => w.refused.map((r) => `${r.step} ${r.status} ${r.code ?? ''} (${w.trail.join(', ')})`));

/**
 * Polls `progress` (how many of the walks' records are not final yet, and the newest finish) until none
 * is left or the deadline passes; answers the newest finish, never before `clearedAt`.
 */
async function untilFinal(
  progress: () => Promise<{ pending: number; newest: Date | null }>,
  clearedAt: number,
  deadlineMs: number,
): Promise<number> {
  const until = Date.now() + deadlineMs;
  let last = clearedAt;
  for (;;) {
    const { pending, newest } = await progress();
    if (newest) last = Math.max(clearedAt, newest.getTime());
    if (pending === 0 || Date.now() > until) return last;
    await sleep(500);
  }
}

/** The final statuses of `ids` that are not `activated`, and the newest `activated_at`, as `untilFinal` reads them. */
async function activationsProgress(pool: Pool, ids: string[]) {
  const { rows } = await pool.query<{ pending: number; newest: Date | null }>(
    `select count(*) filter (where status not in ('activated', 'failed', 'cancelled'))::int as pending,
            max(activated_at) as newest
       from activations where id = any($1::uuid[])`,
    [ids],
  );
  return rows[0];
}

/**
 * Consumer journeys: waits until every activation is final (or the deadline), then counts. Untrue: verify-identity
 * answered 200 but the activation records another verification, or none.
 */
export async function settle(pool: Pool, journeys: Journey[], clearedAt: number, deadlineMs = 120_000): Promise<MatrixCounts> {
  const ids = journeys.map((j) => j.activationId).filter((id): id is string => !!id);
  const lastActivated = await untilFinal(() => activationsProgress(pool, ids), clearedAt, deadlineMs);
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
  const stuck = journeys.filter((j) => byId.get(j.activationId ?? '')?.status !== 'activated');
  return {
    journeys: journeys.length,
    ...answerCounts(journeys),
    stuck: stuck.length,
    paidTwice: twice[0].n,
    untrue: journeys.filter((j) => j.transId && byId.get(j.activationId!)?.identity_ref !== j.transId).length,
    catchUpMs: lastActivated - clearedAt,
    details: [...refusalDetails(journeys), ...stuck.map((j) => `stuck: ${byId.get(j.activationId ?? '')?.status ?? 'no activation'}`)],
  };
}

const STORE_FINAL = ['issued', 'failed', 'expired'];

/** How many QR e-mails the development sender wrote to each of `emails`. */
function qrMails(messagesFile: string, emails: string[]): Map<string, number> {
  const counts = new Map(emails.map((e) => [e, 0]));
  for (const line of readFileSync(messagesFile, 'utf8').split('\n').filter(Boolean)) {
    const m = JSON.parse(line) as { to: string; purpose?: string };
    if (m.purpose === 'esim.qr' && counts.has(m.to)) counts.set(m.to, counts.get(m.to)! + 1);
  }
  return counts;
}

/**
 * Store orders: waits until every order is final (issued, failed, expired) and every issued order's QR
 * e-mail is written (or the deadline), then counts. Stuck: not `issued`. Paid twice: more than one
 * completed payment. Untrue: the buyer has another order than the one a 201 answered (a request told
 * nothing happened made one), the order's 201 with no such order, or the payment's 201 naming a payment
 * that is not the order's completed one while it said `completed`. Not once: an issued order whose QR
 * e-mail (in the messages file) or placement (`placeStoreOrder` in its run's history) is not exactly one.
 */
export async function settleStoreOrders(
  pool: Pool,
  temporal: Client,
  messagesFile: string,
  orders: StoreJourney[],
  clearedAt: number,
  deadlineMs = 120_000,
): Promise<MatrixCounts> {
  const ids = orders.map((o) => o.orderId).filter((id): id is string => !!id);
  const emailOf = new Map(orders.filter((o) => o.orderId).map((o) => [o.orderId!, o.email]));
  const lastIssued = await untilFinal(
    async () => {
      const { rows } = await pool.query<{ id: string; status: string; issued_at: Date | null }>(
        `select id, status, issued_at from store_orders where id = any($1::uuid[])`,
        [ids],
      );
      // An issued order whose QR e-mail is not written yet is not done either (the relay sends it after the commit).
      const mails = qrMails(messagesFile, [...emailOf.values()]);
      const pending = rows.filter((r) => !STORE_FINAL.includes(r.status) || (r.status === 'issued' && !mails.get(emailOf.get(r.id)!)));
      const issuedAt = rows.flatMap((r) => (r.issued_at ? [r.issued_at.getTime()] : []));
      return { pending: pending.length, newest: issuedAt.length ? new Date(Math.max(...issuedAt)) : null };
    },
    clearedAt,
    deadlineMs,
  );
  const { rows: finals } = await pool.query<{ id: string; status: string; payment_id: string | null; completed: number }>(
    `select s.id, s.status, s.payment_id,
            (select count(*) from payments p where p.order_id = s.id and p.status = 'completed')::int as completed
       from store_orders s where s.id = any($1::uuid[])`,
    [ids],
  );
  const byId = new Map(finals.map((r) => [r.id, r]));
  const { rows: payments } = await pool.query<{ id: string; order_id: string; status: string }>(
    `select id, order_id, status from payments where id = any($1::uuid[])`,
    [orders.map((o) => o.paymentId).filter(Boolean)],
  );
  const paymentById = new Map(payments.map((p) => [p.id, p]));
  // Each buyer orders once: another order of theirs was made by a request whose answer said nothing was.
  const { rows: made } = await pool.query<{ user_id: string; n: number }>(
    `select user_id, count(*)::int as n from store_orders where user_id = any($1::uuid[]) group by user_id`,
    [orders.map((o) => o.userId).filter(Boolean)],
  );
  const madeBy = new Map(made.map((r) => [r.user_id, r.n]));
  const untrue = orders.filter((o) => {
    if ((madeBy.get(o.userId ?? '') ?? 0) !== (o.orderId ? 1 : 0)) return true;
    if (!o.orderId) return false;
    const order = byId.get(o.orderId);
    if (!order) return true;
    if (!o.paymentId) return false;
    const payment = paymentById.get(o.paymentId);
    if (!payment || payment.order_id !== o.orderId) return true;
    return o.paymentStatus === 'completed' && (payment.status !== 'completed' || order.payment_id !== o.paymentId);
  });
  const issued = orders.filter((o) => byId.get(o.orderId ?? '')?.status === 'issued');
  const mails = qrMails(
    messagesFile,
    orders.map((o) => o.email),
  );
  const placements = new Map<string, number>();
  for (const o of issued) {
    const history = await temporal.workflow.getHandle(storeOrderWorkflowId(o.orderId!)).fetchHistory();
    placements.set(
      o.orderId!,
      (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'placeStoreOrder').length,
    );
  }
  const notOnce = issued.filter((o) => mails.get(o.email) !== 1 || placements.get(o.orderId!) !== 1);
  const stuck = orders.filter((o) => byId.get(o.orderId ?? '')?.status !== 'issued');
  return {
    journeys: orders.length,
    ...answerCounts(orders),
    stuck: stuck.length,
    paidTwice: finals.filter((r) => r.completed > 1).length,
    untrue: untrue.length,
    notOnce: notOnce.length,
    catchUpMs: lastIssued - clearedAt,
    details: [
      ...refusalDetails(orders),
      ...stuck.map((o) => `stuck: ${byId.get(o.orderId ?? '')?.status ?? 'no order'}`),
      ...untrue.map(
        (o) => `untrue: order ${o.orderId} (${madeBy.get(o.userId ?? '') ?? 0} made), payment ${o.paymentId} answered ${o.paymentStatus}`,
      ),
      ...notOnce.map((o) => `not once: order ${o.orderId}: ${mails.get(o.email)} QR e-mails, ${placements.get(o.orderId!)} placements`),
    ],
  };
}

/**
 * Company seats: waits until every activation is final (or the deadline), then counts. Paid twice: a
 * person the company paid for more than once (completed payments of their company orders). Untrue:
 * verify-identity's transaction is not the one the activation records, or the create's 201 named an order
 * that is not the activation's, or one the company did not pay (the seat's order lands paid).
 */
export async function settleSeats(pool: Pool, seats: SeatJourney[], clearedAt: number, deadlineMs = 120_000): Promise<MatrixCounts> {
  const ids = seats.map((s) => s.activationId).filter((id): id is string => !!id);
  const lastActivated = await untilFinal(() => activationsProgress(pool, ids), clearedAt, deadlineMs);
  const { rows: finals } = await pool.query<{ id: string; status: string; identity_ref: string | null; order_id: string; paid: boolean }>(
    `select a.id, a.status, a.identity_ref, a.order_id,
            exists (select 1 from payments p join orders o on o.id = p.order_id
                     where p.order_id = a.order_id and p.status = 'completed' and p.method = 'company_account'
                       and o.company_id is not null and o.status = 'paid') as paid
       from activations a where a.id = any($1::uuid[])`,
    [ids],
  );
  const byId = new Map(finals.map((r) => [r.id, r]));
  const { rows: twice } = await pool.query<{ n: number }>(
    `select count(*)::int as n from (select o.user_id from payments p join orders o on o.id = p.order_id
       where p.status = 'completed' and o.company_id is not null and o.user_id = any($1::uuid[])
       group by o.user_id having count(*) > 1) d`,
    [seats.map((s) => s.userId).filter(Boolean)],
  );
  const untrue = seats.filter((s) => {
    if (!s.activationId) return false;
    const a = byId.get(s.activationId);
    if (!a || a.order_id !== s.orderId || !a.paid) return true;
    return !!s.transId && a.identity_ref !== s.transId;
  });
  const stuck = seats.filter((s) => byId.get(s.activationId ?? '')?.status !== 'activated');
  return {
    journeys: seats.length,
    ...answerCounts(seats),
    stuck: stuck.length,
    paidTwice: twice[0].n,
    untrue: untrue.length,
    catchUpMs: lastActivated - clearedAt,
    details: [
      ...refusalDetails(seats),
      ...stuck.map((s) => `stuck: ${byId.get(s.activationId ?? '')?.status ?? 'no activation'}`),
      ...untrue.map((s) => `untrue: activation ${s.activationId}`),
    ],
  };
}
