/**
 * GSMA SGP.22 section 4.1 activation codes: an optional `LPA:` prefix, then
 * `$`-separated positional fields — format version (`1`), SM-DP+ address (a
 * hostname), matching id, then optionally the SM-DS OID, the confirmation-code
 * flag and one further field (3 to 6 segments after the prefix), at most 255
 * characters, printable ASCII only.
 */
export interface ActivationCode {
  smdpAddress: string;
  matchingId: string;
  /** Always `LPA:`-prefixed. */
  raw: string;
}

export const ACTIVATION_CODE_MAX_LENGTH = 255;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * The whole rule as one regular expression, published as the OpenAPI `pattern`
 * so a generated client builds only codes the server takes. The hostname needs
 * no separate 253-character limit: 255 characters in all already bound it.
 */
export const ACTIVATION_CODE_PATTERN =
  `^(?:LPA:)?1\\$(${LABEL}(?:\\.${LABEL})+)\\$([A-Za-z0-9-]*)` + '(?:\\$(?:[0-2](?:\\.[0-9]+)+)?(?:\\$1?(?:\\$[!-#%-~]*)?)?)?$';
const ACTIVATION_CODE = new RegExp(ACTIVATION_CODE_PATTERN);

export function parseActivationCode(input: string): ActivationCode | null {
  if (input.length > ACTIVATION_CODE_MAX_LENGTH) return null;
  const match = ACTIVATION_CODE.exec(input);
  if (!match) return null;
  const body = input.startsWith('LPA:') ? input.slice(4) : input;
  return { smdpAddress: match[1], matchingId: match[2], raw: `LPA:${body}` };
}
