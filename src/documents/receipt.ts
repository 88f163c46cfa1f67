import PDFDocument from 'pdfkit';
import { fromMinorUnits } from '../payments/money';
import type { OrganizationSettings } from '../settings/organization';
import { drawLine, drawParagraph, lineHeight, registerFaces, type Direction, type Pdf, type TextStyle } from './text';
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

/** "1,234.50 SAR": the currency's own decimals (payments/money.ts), thousands grouped. */
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
const COLUMNS = {
  en: { x: PAGE.margin, width: 150 },
  value: { x: PAGE.margin + 156, width: INNER - 312 },
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
  const doc = new PDFDocument({ size: 'A4', margin: PAGE.margin, info: { Title: 'Payment Receipt / إيصال دفع' } });
  const done = collect(doc);
  registerFaces(doc);
  let y = PAGE.margin;
  if (settings) y = sellerHeader(doc, settings, y);
  y = title(doc, y);
  y = figures(doc, model, settings, y);
  disclaimer(doc, y + 18);
  if (settings) footer(doc, settings);
  doc.end();
  return done;
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
    const label = (l: Bilingual, v: string | null) => (v ? [{ text: `${l[lang]}: ${v}`, style: small }] : []);
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

function figureRow(doc: Pdf, line: ReceiptLine, style: TextStyle, y: number): number {
  const labelStyle: TextStyle = { ...style, color: style.bold ? undefined : GREY };
  drawLine(doc, line.label.en, 'ltr', labelStyle, { ...COLUMNS.en, align: 'left', y });
  drawLine(doc, line.label.ar, 'rtl', labelStyle, { ...COLUMNS.ar, align: 'right', y });
  const values: Array<{ text: string; dir: Direction | 'auto' }> =
    typeof line.value === 'string'
      ? [{ text: line.value, dir: 'auto' }]
      : [
          { text: line.value.en, dir: 'ltr' },
          { text: line.value.ar, dir: 'rtl' },
        ];
  values.forEach((v, i) => drawLine(doc, v.text, v.dir, style, { ...COLUMNS.value, align: 'center', y: y + i * lineHeight(style.size) }));
  const bottom = y + values.length * lineHeight(style.size) + 4;
  rule(doc, bottom);
  return bottom + 6;
}

function figures(doc: Pdf, model: ReceiptModel, settings: OrganizationSettings | null, y: number): number {
  let at = y;
  rule(doc, at - 6);
  for (const line of model.lines) at = figureRow(doc, line, { size: 10 }, at);
  at = figureRow(doc, { label: RECEIPT_TEXT.total, value: formatMoney(model.totalMinor, model.currency) }, { size: 12, bold: true }, at);
  const vat = vatLine(settings, model);
  if (vat) at = figureRow(doc, vat, { size: 10 }, at);
  return at;
}

function disclaimer(doc: Pdf, y: number): void {
  const style: TextStyle = { size: 9, color: GREY };
  const box = { x: PAGE.margin, width: INNER, align: 'center' as const };
  drawLine(doc, RECEIPT_TEXT.disclaimer.en, 'ltr', style, { ...box, y });
  drawLine(doc, RECEIPT_TEXT.disclaimer.ar, 'rtl', style, { ...box, y: y + lineHeight(9) });
}

/** Support e-mail and phone at the foot of the page, in both languages; nothing when neither is set. */
function footer(doc: Pdf, s: OrganizationSettings): void {
  const contacts = [s.supportEmail, s.supportPhone].filter((c): c is string => Boolean(c));
  if (contacts.length === 0) return;
  const style: TextStyle = { size: 9, color: GREY };
  const y = PAGE.height - PAGE.margin - lineHeight(9);
  rule(doc, y - 6);
  const joined = contacts.join('  |  ');
  drawLine(doc, `${RECEIPT_TEXT.support.en}: ${joined}`, 'ltr', style, { x: PAGE.margin, width: HALF, align: 'left', y });
  drawLine(doc, `${RECEIPT_TEXT.support.ar}: ${joined}`, 'rtl', style, {
    x: PAGE.width - PAGE.margin - HALF,
    width: HALF,
    align: 'right',
    y,
  });
}
