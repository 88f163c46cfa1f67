import { Operator, Package } from './catalog';
import { Consent } from './consent';
import { InvitationLink } from './invitation-link';
import { OtpChallenge, OtpRequest } from './otp';
import { RateLimitCounter } from './rate-limit';
import { Session, TokenBlocklist } from './session';
import { User } from './user';

export * from './catalog';
export * from './consent';
export * from './invitation-link';
export * from './otp';
export * from './rate-limit';
export * from './session';
export * from './user';

export const entities = [User, Consent, OtpChallenge, OtpRequest, Session, TokenBlocklist, InvitationLink, RateLimitCounter, Operator, Package];
