import { Activation } from './activation';
import { Operator, Package } from './catalog';
import { Consent } from './consent';
import { InvitationLink } from './invitation-link';
import { Order, OrderItem } from './order';
import { OtpChallenge, OtpRequest } from './otp';
import { Payment, WebhookEvent } from './payment';
import { RateLimitCounter } from './rate-limit';
import { Session, TokenBlocklist } from './session';
import { User } from './user';

export * from './activation';
export * from './catalog';
export * from './consent';
export * from './invitation-link';
export * from './order';
export * from './otp';
export * from './payment';
export * from './rate-limit';
export * from './session';
export * from './user';

export const entities = [
  User,
  Consent,
  OtpChallenge,
  OtpRequest,
  Session,
  TokenBlocklist,
  InvitationLink,
  RateLimitCounter,
  Operator,
  Package,
  Order,
  OrderItem,
  Activation,
  Payment,
  WebhookEvent,
];
