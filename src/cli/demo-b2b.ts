/**
 * `npm run demo -- --b2b`: walks the running stack from a super_admin's invitation to a company staff
 * member's activated SIM and the company's billing showing the charge, over HTTP, printing each step
 * and the Temporal UI links of the company, quote and activation runs. Nothing is faked: codes and the
 * invitation link are read where the development sender writes them, the company and quote runs are
 * the real workflows, and the seat's SIM goes through the activation workflow like any other.
 *
 * The super_admin is created as `npm run create-user` does (the first super_admin has no other way
 * in), in the stack's database: DATABASE_URL, or the one the stack printed to .data/logs/database.out.
 * `--admin-phone <E.164>` signs in an existing super_admin instead.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { MagicLinkResponse } from '../auth/schemas';
import type { Billing, BillingResponse, Dashboard, DashboardResponse } from '../billing/schemas';
import { DEMO } from '../catalog/demo-seed';
import type { RegisteredCompanyResponse } from '../companies/schemas';
import type { ContractResponse } from '../contracts/schemas';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { REQUIRED_CONSENT_TYPES } from '../entities/consent';
import { MAX_LIMIT } from '../http/pagination';
import { createPersonalDataCipher } from '../lib/crypto';
import type { SendLinksResponse } from '../links/schemas';
import type { QuoteDetailResponse } from '../quotes/schemas';
import type { RosterList } from '../roster/schemas';
import { activationWorkflowId } from '../../workflows/contracts/activation-contract';
import { companyWorkflowId } from '../../workflows/contracts/company-contract';
import { quoteWorkflowId } from '../../workflows/contracts/quote-contract';
import { createUser } from './create-user';
import { createDemoClient, DemoError, type DemoClient, type DemoClientOptions } from './demo-client';
import { STACK_DATABASE_FILE, stackDatabaseUrl } from './stack-database';
import { awaitActivated, createActivation, demoPhone, digits, runUrl, signInByOtp, verifyIdentity } from './demo-steps';

export interface B2bDemoOptions extends DemoClientOptions {
  /** An existing super_admin's phone; without it one is created in the stack's database. */
  adminPhone?: string;
  /** Where the stack's database is, when creating the super_admin (default: DATABASE_URL, then .data/logs/database.out). */
  databaseUrl?: string;
  temporalUiUrl?: string;
}

export interface B2bDemoResult {
  companyId: string;
  chainRootId: string;
  contractId: string;
  rosterId: string;
  staffUserId: string;
  activationId: string;
  status: string;
  billing: z.infer<typeof Billing>;
  dashboard: z.infer<typeof Dashboard>;
}

/** A PDF's signature is all the proof check reads; a real transfer slip would do as well. */
const PROOF_PDF = Buffer.from('%PDF-1.4\n% demo bank transfer slip\n%%EOF\n').toString('base64');

export async function runB2bDemo(opts: B2bDemoOptions): Promise<B2bDemoResult> {
  const c = createDemoClient(opts);
  const as = (token: string) => ({ token });

  c.step('The stack is ready');
  await c.call('GET', '/readyz');

  const company = await setUpCompany(c, opts);
  const { companyId, chainRootId, packageId, portal } = company;
  const [{ rosterId, linkToken }] = company.staff;

  c.step('The staff member opens the link: redeemed, signed in, then the consents');
  c.show('link', `…/invite#token=${linkToken.slice(0, 6)}…  (from ${c.messagesFile})`);
  const redeemed = await c.call<z.infer<typeof MagicLinkResponse>>('POST', '/auth/magic-link', { token: linkToken });
  const staff = redeemed.session.token ?? '';
  c.show('b2b', redeemed.b2b);
  if (redeemed.b2b.consentsRequired.length > 0) {
    const consents = REQUIRED_CONSENT_TYPES.map((type) => ({ type, version: '2026-01' }));
    await c.call('POST', '/auth/consents', { consents }, as(staff));
  }

  const created = await createActivation(c, staff, redeemed.b2b.packageId ?? packageId, 'physical');
  c.show('paid', 'by the company: the order is already paid, only identity is left');
  await verifyIdentity(c, staff, created.activationId);
  const final = await awaitActivated(c, staff, created.activationId);

  c.step("The company's billing shows the charge and its dashboard the activation");
  const billing = await c.call<z.infer<typeof BillingResponse>>('GET', '/b2b/billing', undefined, as(portal));
  c.show(
    'outstanding',
    `${billing.data.outstandingSar} SAR; lines drawn ${billing.data.linesDrawn.consumed}/${billing.data.linesDrawn.total}`,
  );
  c.show('charges', billing.data.charges);
  const dashboard = await c.call<z.infer<typeof DashboardResponse>>('GET', '/b2b/dashboard', undefined, as(portal));
  c.show('dashboard', dashboard.data.stats);

  c.log(`\nDone in ${c.summary()}: ${redeemed.user.name}'s SIM is activated and charged to the company.`);
  if (opts.temporalUiUrl) {
    c.log('The runs in the Temporal UI:');
    c.log(`   company     ${runUrl(opts.temporalUiUrl, companyWorkflowId(companyId))}`);
    c.log(`   quote       ${runUrl(opts.temporalUiUrl, quoteWorkflowId(chainRootId))}`);
    c.log(`   activation  ${runUrl(opts.temporalUiUrl, activationWorkflowId(created.activationId))}`);
    c.log(`or search the UI for  CompanyId = "${companyId}"`);
  }
  return {
    companyId,
    chainRootId,
    contractId: company.contractId,
    rosterId,
    staffUserId: redeemed.user.id,
    activationId: created.activationId,
    status: final.status ?? 'unknown',
    billing: billing.data,
    dashboard: dashboard.data,
  };
}

/** A staged staff member of the company, with the token of the invitation link the SMS carried. */
export interface StagedStaff {
  name: string;
  phone: string;
  rosterId: string;
  linkToken: string;
}

/** What `setUpCompany` leaves: the company approved and prepaid, its contract funded, its staff staged and sent their links. */
export interface CompanySetUp {
  companyId: string;
  chainRootId: string;
  contractId: string;
  /** The contract line every staged person's link holds a seat of. */
  contractItemId: string;
  packageId: string;
  /** The company admin's bearer token. */
  portal: string;
  staff: StagedStaff[];
}

/**
 * The walk up to the invitation links sent: a super_admin invites the company admin, who registers the
 * company; approved, prepaid; a quote for `staff + 1` Starter lines countered with `staff + 2`, accepted,
 * confirmed as a contract and paid by bank transfer; `staff` people staged (the first is Sara Demo) and
 * sent their links by SMS, whose tokens are read where the development sender writes them. The demo goes
 * on with one person; the fault matrix (test/e2e/fault-matrix.test.ts) stages many once and redeems
 * their links under faults.
 */
export async function setUpCompany(
  c: DemoClient,
  opts: Pick<B2bDemoOptions, 'adminPhone' | 'databaseUrl'>,
  staff = 1,
): Promise<CompanySetUp> {
  const as = (token: string) => ({ token });

  c.step('A super_admin signs in');
  const adminPhone = opts.adminPhone ?? (await createSuperAdmin(c, opts.databaseUrl));
  const root = (await signInByOtp(c, adminPhone)).token;

  c.step('The super_admin invites the company admin (a portal user with no company yet)');
  const portalPhone = demoPhone();
  await c.call('POST', '/admin/companies/invites', { phone: portalPhone, name: 'Huda Demo', role: 'admin' }, as(root));
  c.show('phone', portalPhone);

  c.step('The company admin signs in and registers the company (pending; its run starts)');
  const portal = (await signInByOtp(c, portalPhone)).token;
  const registered = await c.call<z.infer<typeof RegisteredCompanyResponse>>(
    'POST',
    '/b2b/company',
    {
      inKsa: true,
      crNumber: `10${digits(8)}`,
      name: `Acme Demo ${digits(4)}`,
      contactName: 'Huda Demo',
      contactEmail: `huda.${digits(6)}@acme.example`,
      contactPhone: portalPhone,
    },
    as(portal),
  );
  const companyId = registered.data.company.id;
  c.show('companyId', companyId);
  c.show('status', registered.data.company.status);

  c.step('The super_admin approves it; the company picks prepaid');
  await c.call('POST', `/admin/companies/${companyId}/status`, { action: 'approve', reason: 'CR checked (demo)' }, as(root));
  await c.call('PATCH', '/b2b/company/payment-mode', { paymentMode: 'prepaid' }, as(portal));

  const asked = staff + 1;
  const lines = staff + 2;
  c.step(`Quote: the company asks for ${asked} Starter lines; staff counter with ${lines}; the company accepts`);
  const packageId = DEMO.packages.starter;
  const draft = await c.call<z.infer<typeof QuoteDetailResponse>>(
    'POST',
    '/b2b/quotes',
    { needs: { userCount: lines, preference: 'data', budgetSar: 500 }, items: [{ packageId, qty: asked }] },
    as(portal),
  );
  const chainRootId = draft.data.id;
  await c.call('POST', `/b2b/quotes/${chainRootId}/submit`, undefined, as(portal));
  await c.call('POST', `/admin/quotes/${chainRootId}/start-review`, undefined, as(root));
  const counter = await c.call<z.infer<typeof QuoteDetailResponse>>(
    'POST',
    `/admin/quotes/${chainRootId}/counter`,
    { items: [{ packageId, qty: lines }], note: `${lines} lines at the volume price (demo)` },
    as(root),
  );
  const counterId = counter.data.id;
  await c.call('POST', `/b2b/quotes/${counterId}/accept`, undefined, as(portal));
  c.show('chain', `${chainRootId} -> version ${counter.data.version} (${counterId}) accepted`);

  c.step('Staff confirm the contract (B2B prices snapshotted) and record the bank transfer');
  const contract = await c.call<z.infer<typeof ContractResponse>>(
    'POST',
    `/admin/quotes/${counterId}/confirm-contract`,
    undefined,
    as(root),
  );
  if (!contract.data) throw new DemoError('confirm-contract answered no contract');
  const line = contract.data.items[0];
  c.show('contract', `${contract.data.ref}: ${line.qty} x ${line.unitPriceSar} SAR = ${contract.data.totalSar} SAR`);
  await c.call(
    'POST',
    `/admin/contracts/${contract.data.id}/payments`,
    {
      method: 'bank_transfer',
      amountSar: contract.data.totalSar,
      idempotencyKey: `demo-${randomUUID()}`,
      document: { name: 'transfer.pdf', mime: 'application/pdf', dataBase64: PROOF_PDF },
    },
    as(root),
  );
  c.show('readiness', await c.call('GET', '/b2b/readiness', undefined, as(portal)));

  c.step(
    staff === 1
      ? 'The company stages a staff member and sends her an invitation link by SMS'
      : `The company stages ${staff} staff members and sends each an invitation link by SMS`,
  );
  const people = Array.from({ length: staff }, (_, i) => ({ name: i === 0 ? 'Sara Demo' : `Sara Demo ${i + 1}`, phone: demoPhone() }));
  await c.call('POST', '/b2b/roster/stage', { rows: people.map((p) => ({ ...p, identityType: 'citizen' })) }, as(portal));
  const onRoster = new Map<string, string>();
  for (let page = 1; ; page += 1) {
    const roster = await c.call<z.infer<typeof RosterList>>('GET', `/b2b/roster?limit=${MAX_LIMIT}&page=${page}`, undefined, as(portal));
    for (const e of roster.data.entries) if (e.phone) onRoster.set(e.phone, e.id);
    if (roster.data.entries.length < MAX_LIMIT) break;
  }
  const rosterIds = people.map((p) => {
    const id = onRoster.get(p.phone);
    if (!id) throw new DemoError(`${p.name} is not on the roster`);
    return id;
  });
  const since = new Date();
  const sent = await c.call<z.infer<typeof SendLinksResponse>>(
    'POST',
    '/b2b/roster/links/send',
    { rosterIds, contractItemId: line.id },
    as(portal),
  );
  if (sent.data.sent !== staff) throw new DemoError(`not every link was sent: ${JSON.stringify(sent.data.failed)}`);
  c.show(staff === 1 ? 'rosterId' : 'rosterIds', staff === 1 ? rosterIds[0] : rosterIds);

  const invited: StagedStaff[] = [];
  for (const [i, p] of people.entries()) {
    const linkToken = await c.awaitMessage('the invitation SMS', p.phone, /#token=([A-Za-z0-9_-]+)/, since);
    invited.push({ ...p, rosterId: rosterIds[i], linkToken });
  }
  return {
    companyId,
    chainRootId,
    contractId: contract.data.id,
    contractItemId: line.id,
    packageId,
    portal,
    staff: invited,
  };
}

/** A super_admin with a fresh phone, written as `npm run create-user` writes one (the corpus walks use it too). */
export async function createSuperAdmin(c: DemoClient, databaseUrl?: string): Promise<string> {
  const phone = demoPhone();
  const url = databaseUrl ?? process.env.DATABASE_URL ?? (await stackDatabaseUrl());
  if (!url) throw new DemoError(`no DATABASE_URL and none in ${STACK_DATABASE_FILE}: is \`npm start\` running? (or pass --admin-phone)`);
  const config = loadConfig({ ...process.env, DATABASE_URL: url });
  const db = await openDatabase(config, { schema: 'as-is' });
  try {
    const cipher = createPersonalDataCipher(config.DATA_ENCRYPTION_KEY, config.DATA_HASH_KEY);
    await createUser(db.db, cipher, { role: 'super_admin', name: 'Demo Ops', phone, 'identity-type': 'citizen' });
  } finally {
    await db.close();
  }
  c.show('created', `super_admin ${phone} (as npm run create-user does)`);
  return phone;
}
