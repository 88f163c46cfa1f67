import type { IncomingHttpHeaders } from 'node:http';
import { z } from '../openapi/registry';
import type { ClientType } from '../entities';

// Native HTTP stacks of the mobile app; browsers (including mobile browsers) send "Mozilla/...".
const MOBILE_AGENT = /\b(okhttp|Dart|CFNetwork|Alamofire|ActivationSys(Mobile)?)\b/i;

/** `X-Client-Type: mobile|web` wins; otherwise the user agent decides; default web. */
export function clientTypeOf(headers: IncomingHttpHeaders): ClientType {
  const declared = String(headers['x-client-type'] ?? '')
    .trim()
    .toLowerCase();
  if (declared === 'mobile' || declared === 'web') return declared;
  const agent = headers['user-agent'] ?? '';
  if (!agent.startsWith('Mozilla/') && MOBILE_AGENT.test(agent)) return 'mobile';
  return 'web';
}

/** Documented request header of the sign-in routes (any value is accepted: unknown ones fall back to the user agent). */
export const CLIENT_TYPE_HEADER = z.object({
  'X-Client-Type': z
    .string()
    .optional()
    .openapi({ description: '`mobile` or `web` (case-insensitive, surrounding spaces ignored); anything else: decided by the user agent' }),
});
