import bidiFactory from 'bidi-js';
import { documentFonts } from './fonts';

/** The PDFKit document type (pdfkit's default export is the class). */
export type Pdf = PDFKit.PDFDocument;
export type Direction = 'ltr' | 'rtl';

/** Faces registered on every document: Helvetica (standard, not embedded) for Latin, Noto Naskh Arabic embedded. */
export const FACES = {
  latin: { regular: 'Helvetica', bold: 'Helvetica-Bold' },
  arabic: { regular: 'naskh', bold: 'naskh-bold' },
} as const;

/** Registers the Arabic faces on a new document from the process's one copy of the font bytes. */
export function registerFaces(doc: Pdf): void {
  const fonts = documentFonts();
  doc.registerFont(FACES.arabic.regular, fonts.regular);
  doc.registerFont(FACES.arabic.bold, fonts.bold);
}

const bidi = bidiFactory();

/** One directional run of a line, in visual (left-to-right) order; `text` is the run's characters in logical order. */
export interface BidiRun {
  text: string;
  rtl: boolean;
}

/**
 * The Unicode bidi algorithm (UAX #9, bidi-js) for one line: resolved levels, then rule L2 (from the
 * highest level down to the lowest odd one, reverse every sequence of runs at that level or above).
 * Runs keep their characters in logical order; a right-to-left run gets its mirrored characters
 * (brackets) here, its reversal happens when it is drawn (see `drawable`).
 */
export function bidiRuns(text: string, base: Direction | 'auto'): BidiRun[] {
  if (text.length === 0) return [];
  // 'auto': the paragraph takes the direction of its first strong character (rule P2), e.g. a company name.
  const { levels } = bidi.getEmbeddingLevels(text, base === 'auto' ? undefined : base);
  const runs: Array<{ start: number; end: number; level: number }> = [];
  for (let i = 0; i < text.length; i++) {
    const last = runs[runs.length - 1];
    if (last && last.level === levels[i]) last.end = i + 1;
    else runs.push({ start: i, end: i + 1, level: levels[i] });
  }
  const highest = Math.max(...runs.map((r) => r.level));
  const lowestOdd = Math.min(...runs.map((r) => (r.level % 2 === 1 ? r.level : r.level + 1)));
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length; i++) {
      if (runs[i].level < level) continue;
      let j = i;
      while (j + 1 < runs.length && runs[j + 1].level >= level) j++;
      runs.splice(i, j - i + 1, ...runs.slice(i, j + 1).reverse());
      i = j;
    }
  }
  return runs
    .map((r) => {
      const rtl = r.level % 2 === 1;
      // Directional marks and isolates have done their work in the levels; they have no glyph to draw.
      const chars = text.slice(r.start, r.end).replace(BIDI_CONTROLS, '');
      return { text: rtl ? mirrored(chars) : chars, rtl };
    })
    .filter((r) => r.text.length > 0);
}

const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text kept left to right inside a right-to-left line (U+2066 … U+2069, a left-to-right isolate): a phone
 * number's `+` stays in front of its digits, an e-mail address keeps its order, whatever surrounds them.
 */
export const ltrIsolate = (text: string) => `\u2066${text}\u2069`;

function mirrored(text: string): string {
  return Array.from(text, (c) => bidi.getMirroredCharacter(c) ?? c).join('');
}

/** Characters Helvetica (WinAnsi) prints; anything else is drawn with the embedded Naskh face (Arabic, plus Latin glyphs). */
const LATIN_ONLY = /^[\x20-\x7e\xa0-\xff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026]*$/;
/** The first character of a non-shared script: fontkit lays a run out right to left when it is one of these. */
const FIRST_SCRIPT = /[^\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]/u;
const RTL_SCRIPT = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;

/** A run ready for PDFKit: the face, and the characters in the order that makes the glyphs come out in visual order. */
interface Drawable {
  text: string;
  face: string;
  /** An (empty) feature list makes PDFKit shape the whole run at once instead of word by word (which breaks Arabic word order). */
  features?: PDFKit.Mixins.OpenTypeFeatures[];
}

/**
 * fontkit reverses a run by itself when its first script character is a right-to-left script (it shapes
 * Arabic in logical order and then reverses the glyphs). A run must come out reversed exactly when it is
 * right-to-left; when fontkit will not reverse it (neutrals only) or would reverse a left-to-right one
 * (Arabic-Indic digits), the characters are reversed here instead. Letters that join never take that path.
 */
function drawable(run: BidiRun, bold: boolean): Drawable {
  const latin = LATIN_ONLY.test(run.text);
  const face = latin ? FACES.latin : FACES.arabic;
  const fontkitReverses = !latin && RTL_SCRIPT.test(run.text.match(FIRST_SCRIPT)?.[0] ?? '');
  const text = run.rtl !== fontkitReverses ? Array.from(run.text).reverse().join('') : run.text;
  return { text, face: bold ? face.bold : face.regular, ...(latin ? {} : { features: [] }) };
}

export interface TextStyle {
  size: number;
  bold?: boolean;
  color?: string;
}

interface Piece extends Drawable {
  width: number;
}

function piecesOf(doc: Pdf, text: string, base: Direction | 'auto', style: TextStyle): Piece[] {
  return bidiRuns(text, base).map((run) => {
    const d = drawable(run, style.bold ?? false);
    doc.font(d.face).fontSize(style.size);
    return { ...d, width: doc.widthOfString(d.text, { features: d.features }) };
  });
}

/** Width of one line of text as it will be drawn. */
export function widthOf(doc: Pdf, text: string, base: Direction | 'auto', style: TextStyle): number {
  return piecesOf(doc, text, base, style).reduce((sum, p) => sum + p.width, 0);
}

export interface LineBox {
  x: number;
  y: number;
  width: number;
  align: 'left' | 'right' | 'center';
}

/** Draws one line (no wrapping): bidi runs left to right, each in its face, placed by the box's alignment. */
export function drawLine(doc: Pdf, text: string, base: Direction | 'auto', style: TextStyle, box: LineBox): void {
  const pieces = piecesOf(doc, text, base, style);
  const total = pieces.reduce((sum, p) => sum + p.width, 0);
  let x = box.align === 'left' ? box.x : box.align === 'right' ? box.x + box.width - total : box.x + (box.width - total) / 2;
  // One baseline for every face: Helvetica and Naskh have different ascenders, so "top" would misalign them.
  const baseline = box.y + style.size * 1.15;
  doc.fillColor(style.color ?? '#111111');
  for (const piece of pieces) {
    doc
      .font(piece.face)
      .fontSize(style.size)
      .text(piece.text, x, baseline, { lineBreak: false, baseline: 'alphabetic', features: piece.features });
    x += piece.width;
  }
}

/**
 * Greedy word wrap in logical order (each line is then reordered by itself, as UAX #9 asks of wrapped
 * lines). A word wider than the box is cut into pieces that fit.
 */
export function wrapLines(doc: Pdf, text: string, base: Direction | 'auto', style: TextStyle, width: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words.flatMap((w) => splitLongWord(doc, w, base, style, width))) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && widthOf(doc, candidate, base, style) > width) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** A word wider than the box (a long e-mail address) in pieces that fit, cut between characters. */
function splitLongWord(doc: Pdf, word: string, base: Direction | 'auto', style: TextStyle, width: number): string[] {
  if (widthOf(doc, word, base, style) <= width) return [word];
  const pieces: string[] = [];
  let piece = '';
  for (const char of word) {
    if (piece && widthOf(doc, piece + char, base, style) > width) {
      pieces.push(piece);
      piece = char;
    } else {
      piece += char;
    }
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** Line height for a size: enough for Naskh's tall ascenders and deep descenders. */
export const lineHeight = (size: number) => size * 1.6;

/** Draws wrapped text from `box.y` down; returns the height used. */
export function drawParagraph(doc: Pdf, text: string, base: Direction, style: TextStyle, box: LineBox): number {
  const lines = wrapLines(doc, text, base, style, box.width);
  lines.forEach((line, i) => drawLine(doc, line, base, style, { ...box, y: box.y + i * lineHeight(style.size) }));
  return lines.length * lineHeight(style.size);
}
