/**
 * A substring pattern for ILIKE: `%`, `_` and backslash (ILIKE's default escape character) match
 * themselves, so a search for "50%" finds "50%" and not everything starting with "50".
 */
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
