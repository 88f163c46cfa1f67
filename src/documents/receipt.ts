import PDFDocument from 'pdfkit';
import { fromMinorUnits } from '../lib/money';
import type { OrganizationSettings } from '../settings/organization';
import {
  drawLine,
  drawParagraph,
  lineHeight,
  ltrIsolate,
  registerFaces,
  wrapLines,
  type Direction,
  type Pdf,
  type TextStyle,
} from './text';
import { formatRate, vatIncluded } from './vat';

export interface Bilingual {
  en: string;
  ar: string;
}

/** One figure: labels in both languages; a value either language-neutral (numbers, ids, dates) or in both. */
export interface ReceiptLine {
  label: Bilingual;
  value: string | Bilingual;
}

/** What a document type hands the renderer: its figures and the total (minor units of its currency). */
export interface ReceiptModel {
  lines: ReceiptLine[];
  totalMinor: bigint;
  currency: string;
}

/** Fixed texts (both languages on every document). */
export const RECEIPT_TEXT = {
  title: { en: 'Payment Receipt', ar: 'إيصال دفع' },
  disclaimer: { en: 'This is a payment receipt, not a tax invoice.', ar: 'هذا إيصال دفع وليس فاتورة ضريبية.' },
  total: { en: 'Total', ar: 'الإجمالي' },
  vat: (rate: string): Bilingual => ({ en: `VAT included (${rate}%)`, ar: `ضريبة القيمة المضافة المشمولة (${rate}%)` }),
  crNumber: { en: 'CR No.', ar: 'رقم السجل التجاري' },
  vatNumber: { en: 'VAT No.', ar: 'الرقم الضريبي' },
  support: { en: 'Support', ar: 'الدعم' },
} as const;

/** "1,234.50 SAR": the currency's own decimals (src/lib/money.ts), thousands grouped. */
export function formatMoney(minor: bigint, currency: string): string {
  const [whole, fraction] = fromMinorUnits(minor, currency).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${fraction === undefined ? grouped : `${grouped}.${fraction}`} ${currency.toUpperCase()}`;
}

/** The VAT line's figures, or null: only with settings, showVatOnReceipts on and a VAT number (spec "Admin: settings"). */
export function vatLine(settings: OrganizationSettings | null, model: ReceiptModel): ReceiptLine | null {
  if (!settings?.showVatOnReceipts || !settings.vatNumber) return null;
  return {
    label: RECEIPT_TEXT.vat(formatRate(settings.vatRatePercent)),
    value: formatMoney(vatIncluded(model.totalMinor, settings.vatRatePercent), model.currency),
  };
}

// A4 in points, and the page's columns.
const PAGE = { width: 595.28, height: 841.89, margin: 48 };
const INNER = PAGE.width - 2 * PAGE.margin;
const HALF = (INNER - 24) / 2;
// Arabic labels run wider than English ones; the value column holds a UUID (188 pt at 10 pt) on one line.
const COLUMNS = {
  en: { x: PAGE.margin, width: 120 },
  value: { x: PAGE.margin + 126, width: INNER - 120 - 150 - 12 },
  ar: { x: PAGE.width - PAGE.margin - 150, width: 150 },
};
const GREY = '#555555';
const RULE = '#bbbbbb';

/**
 * The bilingual receipt: seller header (settings), the title in both languages, the figures (English
 * label left, value in the middle, Arabic label right), the total, the VAT line when enabled, the
 * disclaimer, and the support footer (settings). Arabic is shaped by fontkit and ordered by the bidi
 * algorithm (text.ts). Returns the PDF bytes.
 */
export function renderReceipt(model: ReceiptModel, settings: OrganizationSettings | null): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE.margin, bufferPages: true, info: { Title: 'Payment Receipt / إيصال دفع' } });
  const done = collect(doc);
  registerFaces(doc);
  const foot = settings ? footerLines(doc, settings) : null;
  // The body stops above the footer; a row that would cross it starts a new page (only extreme settings get there).
  const page: Layout = { bottom: PAGE.height - PAGE.margin - (foot ? foot.height + 12 : 0) };
  let y = PAGE.margin;
  if (settings) y = sellerHeader(doc, settings, y);
  y = title(doc, y);
  y = figures(doc, page, model, settings, y);
  disclaimer(doc, page, y + 18);
  if (foot) {
    const pages = doc.bufferedPageRange();
    for (let i = pages.start; i < pages.start + pages.count; i++) {
      doc.switchToPage(i);
      footer(doc, foot);
    }
  }
  doc.end();
  return done;
}

interface Layout {
  /** Lowest y the body may reach on a page. */
  bottom: number;
}

/** `y` if `height` still fits above the page's bottom, else the top of a new page. */
function room(doc: Pdf, page: Layout, y: number, height: number): number {
  if (y + height <= page.bottom) return y;
  doc.addPage();
  return PAGE.margin;
}

function collect(doc: Pdf): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

function rule(doc: Pdf, y: number): void {
  doc
    .moveTo(PAGE.margin, y)
    .lineTo(PAGE.width - PAGE.margin, y)
    .lineWidth(0.6)
    .strokeColor(RULE)
    .stroke();
}

/** One column of the header, in its own language and direction; unset fields are left out. */
function sellerBlock(doc: Pdf, lines: Array<{ text: string; style: TextStyle }>, dir: Direction, y: number): number {
  const box =
    dir === 'ltr'
      ? { x: PAGE.margin, width: HALF, align: 'left' as const }
      : { x: PAGE.width - PAGE.margin - HALF, width: HALF, align: 'right' as const };
  let at = y;
  for (const line of lines) at += drawParagraph(doc, line.text, dir, line.style, { ...box, y: at });
  return at;
}

function sellerHeader(doc: Pdf, s: OrganizationSettings, y: number): number {
  const name: TextStyle = { size: 13, bold: true };
  const small: TextStyle = { size: 9, color: GREY };
  const side = (lang: 'en' | 'ar') => {
    const label = (l: Bilingual, v: string | null) => (v ? [{ text: `${l[lang]}: ${ltrIsolate(v)}`, style: small }] : []);
    const address = lang === 'en' ? s.addressEn : s.addressAr;
    return [
      { text: lang === 'en' ? s.legalNameEn : s.legalNameAr, style: name },
      ...label(RECEIPT_TEXT.crNumber, s.crNumber),
      ...label(RECEIPT_TEXT.vatNumber, s.vatNumber),
      ...(address ? [{ text: address, style: small }] : []),
    ];
  };
  const bottom = Math.max(sellerBlock(doc, side('en'), 'ltr', y), sellerBlock(doc, side('ar'), 'rtl', y));
  rule(doc, bottom + 8);
  return bottom + 20;
}

function title(doc: Pdf, y: number): number {
  const style: TextStyle = { size: 20, bold: true };
  const box = { x: PAGE.margin, width: INNER, align: 'center' as const };
  drawLine(doc, RECEIPT_TEXT.title.en, 'ltr', style, { ...box, y });
  drawLine(doc, RECEIPT_TEXT.title.ar, 'rtl', style, { ...box, y: y + lineHeight(20) });
  return y + 2 * lineHeight(20) + 14;
}

function figureRow(doc: Pdf, page: Layout, line: ReceiptLine, style: TextStyle, y: number): number {
  const labelStyle: TextStyle = { ...style, color: style.bold ? undefined : GREY };
  const values: Array<{ text: string; dir: Direction | 'auto' }> =
    typeof line.value === 'string'
      ? [{ text: line.value, dir: 'auto' }]
      : [
          { text: line.value.en, dir: 'ltr' },
          { text: line.value.ar, dir: 'rtl' },
        ];
  // Values wrap inside their column (a long company name), so the row is as tall as its lines.
  const rows = values.flatMap((v) => wrapLines(doc, v.text, v.dir, style, COLUMNS.value.width).map((text) => ({ text, dir: v.dir })));
  const height = rows.length * lineHeight(style.size) + 4;
  const top = room(doc, page, y, height + 6);
  drawLine(doc, line.label.en, 'ltr', labelStyle, { ...COLUMNS.en, align: 'left', y: top });
  drawLine(doc, line.label.ar, 'rtl', labelStyle, { ...COLUMNS.ar, align: 'right', y: top });
  rows.forEach((r, i) => drawLine(doc, r.text, r.dir, style, { ...COLUMNS.value, align: 'center', y: top + i * lineHeight(style.size) }));
  rule(doc, top + height);
  return top + height + 6;
}

function figures(doc: Pdf, page: Layout, model: ReceiptModel, settings: OrganizationSettings | null, y: number): number {
  let at = y;
  rule(doc, at - 6);
  for (const line of model.lines) at = figureRow(doc, page, line, { size: 10 }, at);
  const total = { label: RECEIPT_TEXT.total, value: formatMoney(model.totalMinor, model.currency) };
  at = figureRow(doc, page, total, { size: 12, bold: true }, at);
  const vat = vatLine(settings, model);
  if (vat) at = figureRow(doc, page, vat, { size: 10 }, at);
  return at;
}

function disclaimer(doc: Pdf, page: Layout, y: number): void {
  const style: TextStyle = { size: 9, color: GREY };
  const top = room(doc, page, y, 2 * lineHeight(9));
  const box = { x: PAGE.margin, width: INNER, align: 'center' as const };
  drawLine(doc, RECEIPT_TEXT.disclaimer.en, 'ltr', style, { ...box, y: top });
  drawLine(doc, RECEIPT_TEXT.disclaimer.ar, 'rtl', style, { ...box, y: top + lineHeight(9) });
}

const FOOTER_STYLE: TextStyle = { size: 9, color: GREY };

interface Footer {
  en: string[];
  ar: string[];
  height: number;
}

/** Support e-mail and phone in both languages, wrapped to half the page each; null when neither is set. */
function footerLines(doc: Pdf, s: OrganizationSettings): Footer | null {
  const contacts = [s.supportEmail, s.supportPhone].filter((c): c is string => Boolean(c));
  if (contacts.length === 0) return null;
  const joined = contacts.map(ltrIsolate).join('  |  ');
  const en = wrapLines(doc, `${RECEIPT_TEXT.support.en}: ${joined}`, 'ltr', FOOTER_STYLE, HALF);
  const ar = wrapLines(doc, `${RECEIPT_TEXT.support.ar}: ${joined}`, 'rtl', FOOTER_STYLE, HALF);
  return { en, ar, height: Math.max(en.length, ar.length) * lineHeight(FOOTER_STYLE.size) };
}

/** The footer at the foot of the current page. */
function footer(doc: Pdf, f: Footer): void {
  const y = PAGE.height - PAGE.margin - f.height;
  rule(doc, y - 6);
  const line = lineHeight(FOOTER_STYLE.size);
  f.en.forEach((text, i) => drawLine(doc, text, 'ltr', FOOTER_STYLE, { x: PAGE.margin, width: HALF, align: 'left', y: y + i * line }));
  f.ar.forEach((text, i) =>
    drawLine(doc, text, 'rtl', FOOTER_STYLE, { x: PAGE.width - PAGE.margin - HALF, width: HALF, align: 'right', y: y + i * line }),
  );
}
