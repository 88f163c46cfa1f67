import { randomBytes } from 'node:crypto';
import { proofDocument } from '../../src/contracts/document';
import { DOCUMENT_KINDS, DOCUMENT_MIMES, isCanonicalBase64, type DocumentMime } from '../../src/contracts/schemas';

// The document states per mime which base64 the route accepts (so fuzzers build only accepted files);
// these check that the patterns and the server's own checks agree, on files of every length mod 3.
const SIGNATURES: Record<DocumentMime, Buffer> = {
  'application/pdf': Buffer.from('%PDF-', 'latin1'),
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
};

const matches = (mime: DocumentMime, base64: string) => new RegExp(DOCUMENT_KINDS[mime]).test(base64);
const accepted = (mime: string, base64: string) => {
  try {
    proofDocument({ mime, dataBase64: base64 });
    return true;
  } catch {
    return false;
  }
};

describe('the proof document patterns of the OpenAPI document', () => {
  it.each(DOCUMENT_MIMES)('%s: every file with the signature matches, and the server accepts it', (mime) => {
    for (let extra = 0; extra < 40; extra++) {
      const base64 = Buffer.concat([SIGNATURES[mime], randomBytes(extra)]).toString('base64');
      expect([extra, matches(mime, base64), accepted(mime, base64)]).toEqual([extra, true, true]);
    }
  });

  it.each(DOCUMENT_MIMES)('%s: other files, other kinds and non-canonical text match nowhere the server refuses', (mime) => {
    for (let i = 0; i < 200; i++) {
      const base64 = randomBytes(1 + (i % 30)).toString('base64');
      expect(matches(mime, base64)).toBe(accepted(mime, base64));
    }
    for (const other of DOCUMENT_MIMES.filter((m) => m !== mime)) {
      const base64 = Buffer.concat([SIGNATURES[other], randomBytes(7)]).toString('base64');
      expect([matches(mime, base64), accepted(mime, base64)]).toEqual([false, false]);
    }
    // Non-zero padding bits: the same bytes as another text, which the server refuses as not canonical.
    const extra = Buffer.alloc(((3 - (SIGNATURES[mime].length % 3)) % 3) + 1, 1); // length ≡ 1 (mod 3): ends in ==
    const canonical = Buffer.concat([SIGNATURES[mime], extra]).toString('base64');
    const sloppy = canonical.replace(/(.)(=+)$/, (_, last: string, pad: string) => String.fromCharCode(last.charCodeAt(0) + 1) + pad);
    expect(isCanonicalBase64(sloppy)).toBe(false);
    expect(matches(mime, sloppy)).toBe(false);
  });
});
