import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';

/**
 * CSV responses: RFC 4180 text through csv-stringify, cells that a spreadsheet would run as a
 * formula neutralised, an attachment file name any browser reads, and a row cap.
 */

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
/** Sent as `X-Truncated: true` only when the row cap clipped the export. */
export const TRUNCATED_HEADER = 'X-Truncated';
/** The spec's cap on a capped export (GET /admin/links/export). */
export const CSV_EXPORT_ROW_CAP = 5000;

export type CsvValue = string | number | bigint | boolean | Date | null | undefined;

export interface CsvColumn<K extends string> {
  /** Property of the row. */
  key: K;
  /** Text of the header line. */
  header: string;
}

/** Columns headed by their own key: every export of the spec names its columns that way. */
export function csvColumns<const K extends string>(...keys: K[]): readonly CsvColumn<K>[] {
  return keys.map((key) => ({ key, header: key }));
}

export interface CsvOptions {
  /** Prefix a UTF-8 byte order mark, which Excel needs to read Arabic text as UTF-8. Off by default: RFC 4180 readers see it as data. */
  bom?: boolean;
}

/**
 * OWASP's CSV injection rule: a text cell starting with `=`, `+`, `-`, `@`, TAB or CR is read as a
 * formula by spreadsheets, so it gets a leading single quote. Numbers are not text and stay numbers
 * (-5 stays -5; the string '-5' becomes '-5 with the quote).
 *
 * Two shapes are written as they are, because the spec wants contacts unmasked and neither can call
 * anything: exactly an E.164 number (`+`, a non-zero digit, 7-15 digits in all), and exactly an
 * e-mail address whose local part uses letters, digits and `._%+-` only (dot-separated) and whose
 * domain is DNS labels with a letter TLD. Without `=`, `(`, `|`, `!`, quotes or spaces no function
 * or DDE call can be formed; an address using other RFC 5322 characters keeps the quote.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const E164 = /^\+[1-9]\d{6,14}$/;
const PLAIN_ATOM = '[A-Za-z0-9_%+-]+';
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const PLAIN_EMAIL = new RegExp(`^${PLAIN_ATOM}(?:\\.${PLAIN_ATOM})*@(?:${LABEL}\\.)+[A-Za-z]{2,63}$`);

export function neutraliseFormula(value: string): string {
  if (!FORMULA_START.test(value) || E164.test(value) || PLAIN_EMAIL.test(value)) return value;
  return `'${value}`;
}

/**
 * One header line, then one record per row, CRLF after each; a field is quoted when it holds a comma,
 * a double quote (doubled inside), CR or LF. Null and undefined are empty fields, dates ISO 8601,
 * booleans `true`/`false`.
 */
export function toCsv<K extends string>(
  columns: readonly CsvColumn<K>[],
  rows: readonly { [P in K]?: CsvValue }[],
  options: CsvOptions = {},
): string {
  const records = rows.map((row) => columns.map(({ key }) => cell(row[key])));
  return stringify(records, {
    header: true,
    columns: columns.map(({ header }, index) => ({ key: String(index), header })),
    record_delimiter: 'windows',
    // csv-stringify quotes only the record delimiter itself (CRLF), not a lone CR or LF.
    quoted_match: /[\r\n]/,
    bom: options.bom ?? false,
    cast: { boolean: (value) => (value ? 'true' : 'false'), date: (value) => value.toISOString() },
  });
}

function cell(value: CsvValue): CsvValue {
  return typeof value === 'string' ? neutraliseFormula(value) : value;
}

/** RFC 7230 token characters: such a name needs no quotes. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 5987 attr-char: everything else is percent-encoded from UTF-8. */
const ATTR_CHAR = /[!#$&+\-.^_`|~0-9A-Za-z]/;

/**
 * `attachment; filename=<ASCII fallback>; filename*=UTF-8''<RFC 5987>` (RFC 6266), the form the spec
 * asks of stored documents. `extended: 'when-needed'` (the CSV exports) leaves the second form out
 * for a name that is a plain token: `attachment; filename=people.csv`, exactly as the spec writes
 * those headers. The fallback replaces
 * anything outside printable ASCII, plus `"`, `\`, `/` and `%` (old clients percent-decode it), by `_`
 * and is a quoted-string only when it is not a token; control characters never reach the header.
 */
export function contentDisposition(filename: string, extended: 'always' | 'when-needed' = 'always'): string {
  if (filename.length === 0) throw new TypeError('contentDisposition needs a file name');
  const fallback = asciiFallback(filename);
  if (extended === 'when-needed' && fallback === filename && TOKEN.test(filename)) return `attachment; filename=${filename}`;
  const quoted = TOKEN.test(fallback) ? fallback : `"${fallback}"`;
  return `attachment; filename=${quoted}; filename*=UTF-8''${rfc5987(filename)}`;
}

function asciiFallback(filename: string): string {
  // Accents come off first (é → e), so Latin names stay readable; other scripts become `_` runs.
  const folded = filename.normalize('NFKD').replace(/\p{M}/gu, '');
  return folded.replace(/[^\x20-\x7e]+|["\\/%]/g, '_');
}

function rfc5987(value: string): string {
  // Buffer encoding turns a lone surrogate into U+FFFD where encodeURIComponent would throw.
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Keeps the first `cap` rows. Query `cap + 1` rows so that `truncated` means rows were really left out. */
export function capRows<T>(rows: readonly T[], cap: number): { rows: T[]; truncated: boolean } {
  return { rows: rows.slice(0, cap), truncated: rows.length > cap };
}

/** Sends a CSV attachment: content type, disposition, `X-Truncated: true` when clipped, never cached. */
export function sendCsv(res: Response, file: { filename: string; csv: string; truncated?: boolean }): void {
  res.set('Content-Type', CSV_CONTENT_TYPE);
  res.set('Content-Disposition', contentDisposition(file.filename, 'when-needed'));
  res.set('Cache-Control', 'private, no-store');
  if (file.truncated) res.set(TRUNCATED_HEADER, 'true');
  res.send(file.csv);
}
