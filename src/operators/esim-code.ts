/**
 * GSMA SGP.22 section 4.1 activation codes: an optional `LPA:` prefix, then
 * `$`-separated positional fields — format version (`1`), SM-DP+ address,
 * matching id, then optionally the SM-DS OID and the confirmation-code flag
 * (3 to 6 segments with the prefix-free version field), at most 255 characters.
 */
export interface ActivationCode {
  smdpAddress: string;
  matchingId: string;
  /** Always `LPA:`-prefixed. */
  raw: string;
}

const MAX_LENGTH = 255;
// A hostname (FQDN) for the SM-DP+ address, as SGP.22 requires.
const FQDN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const MATCHING_ID = /^[A-Za-z0-9-]{0,255}$/;
const OID = /^[0-2](\.\d+)+$/;

export function parseActivationCode(input: string): ActivationCode | null {
  const value = input.trim();
  if (value.length === 0 || value.length > MAX_LENGTH) return null;
  const body = value.startsWith('LPA:') ? value.slice(4) : value;
  const fields = body.split('$');
  if (fields.length < 3 || fields.length > 6) return null;
  const [version, smdpAddress, matchingId, oid, confirmation] = fields;
  if (version !== '1' || !smdpAddress || !FQDN.test(smdpAddress) || matchingId === undefined || !MATCHING_ID.test(matchingId)) return null;
  if (oid && !OID.test(oid)) return null;
  if (confirmation !== undefined && confirmation !== '' && confirmation !== '1') return null;
  return { smdpAddress, matchingId, raw: `LPA:${body}` };
}
