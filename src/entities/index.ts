import { Activation } from './activation';
import { AuditEvent } from './audit-event';
import { Operator, Package } from './catalog';
import { Company, CompanyUser } from './company';
import { CompanyCharge, CompanyChargeVersion, CompanyOrderLine } from './company-charge';
import { Consent } from './consent';
import { Contract, ContractItem, ContractPayment } from './contract';
import { InvitationLink, InvitationLinkHourCount, InvitationLinkStatusCount } from './invitation-link';
import { MessageOutboxEntry } from './message-outbox';
import { Order, OrderItem } from './order';
import { OtpChallenge, OtpRequest } from './otp';
import { Payment, WebhookEvent } from './payment';
import { QuoteItem, QuoteVersion } from './quote';
import { RateLimitCounter } from './rate-limit';
import { ReconciliationRecord } from './reconciliation';
import { RosterCount, RosterEntry } from './roster-entry';
import { DeviceBlock, Session, TokenBlocklist } from './session';
import { Setting } from './setting';
import { FxRateSnapshot, StoreDeviceAcknowledgement, StoreOrder, StoreProduct, StoreProductCountry } from './store';
import { User } from './user';
import { WebhookInboxEvent } from './webhook-inbox';
import { WorkflowSignal } from './workflow-signal';
import { WorkflowStart } from './workflow-start';
import { WorkflowUpdateLease } from './workflow-update-lease';

export * from './activation';
export * from './audit-event';
export * from './catalog';
export * from './company';
export * from './company-charge';
export * from './consent';
export * from './contract';
export * from './invitation-link';
export * from './message-outbox';
export * from './order';
export * from './otp';
export * from './payment';
export * from './quote';
export * from './rate-limit';
export * from './reconciliation';
export * from './roster-entry';
export * from './session';
export * from './setting';
export * from './store';
export * from './user';
export * from './webhook-inbox';
export * from './workflow-start';
export * from './workflow-signal';
export * from './workflow-update-lease';

export const entities = [
  User,
  Consent,
  OtpChallenge,
  OtpRequest,
  Session,
  TokenBlocklist,
  DeviceBlock,
  InvitationLink,
  InvitationLinkStatusCount,
  InvitationLinkHourCount,
  RateLimitCounter,
  Operator,
  Package,
  Order,
  OrderItem,
  Activation,
  Payment,
  WebhookEvent,
  WebhookInboxEvent,
  Company,
  CompanyUser,
  AuditEvent,
  ReconciliationRecord,
  RosterEntry,
  RosterCount,
  Setting,
  QuoteVersion,
  QuoteItem,
  Contract,
  ContractItem,
  ContractPayment,
  CompanyCharge,
  CompanyOrderLine,
  CompanyChargeVersion,
  WorkflowStart,
  WorkflowSignal,
  MessageOutboxEntry,
  StoreProduct,
  StoreProductCountry,
  FxRateSnapshot,
  StoreDeviceAcknowledgement,
  StoreOrder,
  WorkflowUpdateLease,
];
