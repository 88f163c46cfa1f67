// Committed migrations, listed explicitly so compiled builds and tests find them
// without a file-system glob. Append new ones at the end.
import { Migration20261122023614_initial } from './Migration20261122023614_initial';
import { Migration20261122024451_catalog } from './Migration20261122024451_catalog';
import { Migration20261122030720_activations } from './Migration20261122030720_activations';
import { Migration20261122031500_auth_changed_notify } from './Migration20261122031500_auth_changed_notify';
import { Migration20261122032236_payments } from './Migration20261122032236_payments';
import { Migration20261123202542_audit_and_companies } from './Migration20261123202542_audit_and_companies';
import { Migration20261123214916_identifier_proof } from './Migration20261123214916_identifier_proof';
import { Migration20261123215403_email_change } from './Migration20261123215403_email_change';
import { Migration20261123215928_blocklists } from './Migration20261123215928_blocklists';
import { Migration20261123223147_live_payment_per_order } from './Migration20261123223147_live_payment_per_order';
import { Migration20261123223423_activation_workflow_started } from './Migration20261123223423_activation_workflow_started';
import { Migration20261123223512_housekeeping_indexes } from './Migration20261123223512_housekeeping_indexes';
import { Migration20261123223651_reconciliation_records } from './Migration20261123223651_reconciliation_records';
import { Migration20261123224302_webhook_inbox } from './Migration20261123224302_webhook_inbox';
import { Migration20261123232129_audit_events } from './Migration20261123232129_audit_events';
import { Migration20261123232238_settings } from './Migration20261123232238_settings';
import { Migration20261123232350_roster_entries } from './Migration20261123232350_roster_entries';
import { Migration20261123232842_staff_users_index } from './Migration20261123232842_staff_users_index';
import { Migration20261123233744_roster_counts } from './Migration20261123233744_roster_counts';
import { Migration20261124010846_quotes_contracts } from './Migration20261124010846_quotes_contracts';
import { Migration20261124023257_invitation_link_channel } from './Migration20261124023257_invitation_link_channel';
import { Migration20261124024121_admin_links_indexes } from './Migration20261124024121_admin_links_indexes';
import { Migration20261124033800_company_payment } from './Migration20261124033800_company_payment';
import { Migration20261124034631_company_charges } from './Migration20261124034631_company_charges';
import { Migration20261124061733_name_trigram_indexes } from './Migration20261124061733_name_trigram_indexes';
import { Migration20261127015453_workflow_starts } from './Migration20261127015453_workflow_starts';

export const migrationsList = [
  { name: 'Migration20261122023614_initial', class: Migration20261122023614_initial },
  { name: 'Migration20261122024451_catalog', class: Migration20261122024451_catalog },
  { name: 'Migration20261122030720_activations', class: Migration20261122030720_activations },
  { name: 'Migration20261122031500_auth_changed_notify', class: Migration20261122031500_auth_changed_notify },
  { name: 'Migration20261122032236_payments', class: Migration20261122032236_payments },
  { name: 'Migration20261123202542_audit_and_companies', class: Migration20261123202542_audit_and_companies },
  { name: 'Migration20261123214916_identifier_proof', class: Migration20261123214916_identifier_proof },
  { name: 'Migration20261123215403_email_change', class: Migration20261123215403_email_change },
  { name: 'Migration20261123215928_blocklists', class: Migration20261123215928_blocklists },
  { name: 'Migration20261123223147_live_payment_per_order', class: Migration20261123223147_live_payment_per_order },
  { name: 'Migration20261123223423_activation_workflow_started', class: Migration20261123223423_activation_workflow_started },
  { name: 'Migration20261123223512_housekeeping_indexes', class: Migration20261123223512_housekeeping_indexes },
  { name: 'Migration20261123223651_reconciliation_records', class: Migration20261123223651_reconciliation_records },
  { name: 'Migration20261123224302_webhook_inbox', class: Migration20261123224302_webhook_inbox },
  { name: 'Migration20261123232129_audit_events', class: Migration20261123232129_audit_events },
  { name: 'Migration20261123232238_settings', class: Migration20261123232238_settings },
  { name: 'Migration20261123232350_roster_entries', class: Migration20261123232350_roster_entries },
  { name: 'Migration20261123232842_staff_users_index', class: Migration20261123232842_staff_users_index },
  { name: 'Migration20261123233744_roster_counts', class: Migration20261123233744_roster_counts },
  { name: 'Migration20261124010846_quotes_contracts', class: Migration20261124010846_quotes_contracts },
  { name: 'Migration20261124023257_invitation_link_channel', class: Migration20261124023257_invitation_link_channel },
  { name: 'Migration20261124024121_admin_links_indexes', class: Migration20261124024121_admin_links_indexes },
  { name: 'Migration20261124033800_company_payment', class: Migration20261124033800_company_payment },
  { name: 'Migration20261124034631_company_charges', class: Migration20261124034631_company_charges },
  { name: 'Migration20261124061733_name_trigram_indexes', class: Migration20261124061733_name_trigram_indexes },
  { name: 'Migration20261127015453_workflow_starts', class: Migration20261127015453_workflow_starts },
];
