import type { IncomingHttpHeaders } from 'node:http';
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
