// Every SQL function of the schema, one file each holding its current definition (docs/decisions/sql-functions.md).
// Migrations apply a file with functionSql; superseded/ holds the earlier definitions that older migrations and
// down() migrations still apply.
import { sql as company_charge_versions_bump } from './company_charge_versions_bump';
import { sql as company_charge_versions_record } from './company_charge_versions_record';
import { sql as company_charges_on_order_rows } from './company_charges_on_order_rows';
import { sql as company_charges_on_orders } from './company_charges_on_orders';
import { sql as company_charges_on_packages } from './company_charges_on_packages';
import { sql as company_charges_on_users } from './company_charges_on_users';
import { sql as company_charges_refresh } from './company_charges_refresh';
import { sql as halalas_sar_text } from './halalas_sar_text';
import { sql as invitation_link_tallies_add } from './invitation_link_tallies_add';
import { sql as invitation_link_tallies_apply } from './invitation_link_tallies_apply';
import { sql as notify_auth_changed } from './notify_auth_changed';
import { sql as notify_message_outbox } from './notify_message_outbox';
import { sql as notify_started_run_signals } from './notify_started_run_signals';
import { sql as notify_webhook_inbox } from './notify_webhook_inbox';
import { sql as notify_workflow_signals } from './notify_workflow_signals';
import { sql as notify_workflow_starts } from './notify_workflow_starts';
import { sql as portal_changed_activations } from './portal_changed_activations';
import { sql as portal_changed_companies } from './portal_changed_companies';
import { sql as portal_changed_company_charges } from './portal_changed_company_charges';
import { sql as portal_changed_company_order_lines } from './portal_changed_company_order_lines';
import { sql as portal_changed_company_users } from './portal_changed_company_users';
import { sql as portal_changed_contract_items } from './portal_changed_contract_items';
import { sql as portal_changed_contract_payments } from './portal_changed_contract_payments';
import { sql as portal_changed_contracts } from './portal_changed_contracts';
import { sql as portal_changed_invitation_links } from './portal_changed_invitation_links';
import { sql as portal_changed_order_items } from './portal_changed_order_items';
import { sql as portal_changed_orders } from './portal_changed_orders';
import { sql as portal_changed_packages } from './portal_changed_packages';
import { sql as portal_changed_quote_items } from './portal_changed_quote_items';
import { sql as portal_changed_quote_versions } from './portal_changed_quote_versions';
import { sql as portal_changed_roster_entries } from './portal_changed_roster_entries';
import { sql as portal_changed_row } from './portal_changed_row';
import { sql as revoke_sessions_of_deactivated_user } from './revoke_sessions_of_deactivated_user';
import { sql as roster_counts_apply } from './roster_counts_apply';
import { sql as roster_entries_copy_latest_link } from './roster_entries_copy_latest_link';
import { sql as roster_entries_latest_link } from './roster_entries_latest_link';
import { sql as company_charges_refresh_v1 } from './superseded/company_charges_refresh.v1';
import { sql as company_charges_refresh_v2 } from './superseded/company_charges_refresh.v2';
import { sql as company_charges_refresh_v3 } from './superseded/company_charges_refresh.v3';
import { sql as notify_auth_changed_v1 } from './superseded/notify_auth_changed.v1';

const FUNCTIONS = {
  company_charge_versions_bump,
  company_charge_versions_record,
  company_charges_on_order_rows,
  company_charges_on_orders,
  company_charges_on_packages,
  company_charges_on_users,
  company_charges_refresh,
  halalas_sar_text,
  invitation_link_tallies_add,
  invitation_link_tallies_apply,
  notify_auth_changed,
  notify_message_outbox,
  notify_started_run_signals,
  notify_webhook_inbox,
  notify_workflow_signals,
  notify_workflow_starts,
  portal_changed_activations,
  portal_changed_companies,
  portal_changed_company_charges,
  portal_changed_company_order_lines,
  portal_changed_company_users,
  portal_changed_contract_items,
  portal_changed_contract_payments,
  portal_changed_contracts,
  portal_changed_invitation_links,
  portal_changed_order_items,
  portal_changed_orders,
  portal_changed_packages,
  portal_changed_quote_items,
  portal_changed_quote_versions,
  portal_changed_roster_entries,
  portal_changed_row,
  revoke_sessions_of_deactivated_user,
  roster_counts_apply,
  roster_entries_copy_latest_link,
  roster_entries_latest_link,
};
const SUPERSEDED = {
  'company_charges_refresh.v1': company_charges_refresh_v1,
  'company_charges_refresh.v2': company_charges_refresh_v2,
  'company_charges_refresh.v3': company_charges_refresh_v3,
  'notify_auth_changed.v1': notify_auth_changed_v1,
};

export type SqlFunction = keyof typeof FUNCTIONS;
export type SupersededFunction = keyof typeof SUPERSEDED;

/** The statement that creates or replaces `name` as its file defines it now: what a migration applies. */
export function functionSql(name: SqlFunction): string {
  return FUNCTIONS[name];
}

/** An earlier definition, as a migration left it, for the migrations that apply it (history: never edited). */
export function supersededFunctionSql(version: SupersededFunction): string {
  return SUPERSEDED[version];
}

/** Every current definition by name and every superseded one by `name.vN` (the schema tests read them). */
export const functionFiles = { current: FUNCTIONS, superseded: SUPERSEDED } as const;
