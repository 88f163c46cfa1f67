import { AppError } from '../http/errors';
import { DOCUMENT_MIMES, MAX_DOCUMENT_BYTES, type DocumentMime } from './schemas';

/** The first bytes each accepted proof file starts with. */
const SIGNATURES: Record<DocumentMime, Buffer> = {
  'application/pdf': Buffer.from('%PDF-', 'latin1'),
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
};

const isDocumentMime = (mime: string): mime is DocumentMime => (DOCUMENT_MIMES as readonly string[]).includes(mime);

/** Decoded size of canonical base64 (the schema checked the form), without decoding it. */
export function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/**
 * The proof document's bytes, after the checks the schema cannot make. The codes split by what is
 * wrong: the form of the field (missing, empty, not canonical base64, a body over the route's limit)
 * is VALIDATION_ERROR in the schema; well-formed data decoding to more than 5 MB is
 * CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE; a mime outside pdf/png/jpeg, or bytes that are not a file of
 * the declared kind, CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME (the stored mime is sent back as the
 * download's Content-Type, so it must be true). Size first: nothing over 5 MB is decoded.
 */
export function proofDocument(doc: { mime: string; dataBase64: string }): { mime: DocumentMime; bytes: Buffer } {
  const size = decodedLength(doc.dataBase64);
  if (size > MAX_DOCUMENT_BYTES)
    throw new AppError('CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE', { details: { maxBytes: MAX_DOCUMENT_BYTES, bytes: size } });
  if (!isDocumentMime(doc.mime))
    throw new AppError('CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME', { details: { allowed: [...DOCUMENT_MIMES] } });
  const bytes = Buffer.from(doc.dataBase64, 'base64');
  const signature = SIGNATURES[doc.mime];
  if (bytes.length < signature.length || !bytes.subarray(0, signature.length).equals(signature)) {
    throw new AppError('CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME', {
      details: { allowed: [...DOCUMENT_MIMES], reason: 'content does not match mime' },
    });
  }
  return { mime: doc.mime, bytes };
}
