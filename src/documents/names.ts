import type { ContractPaymentMethod, PaymentRowMethod, PaymentStatus } from '../entities';
import type { Bilingual } from './receipt';

/** Payment methods as a receipt prints them (the wire names are neutral codes). */
export const METHOD_NAMES: Record<PaymentRowMethod | ContractPaymentMethod, Bilingual> = {
  local_debit: { en: 'Debit card', ar: 'بطاقة خصم' },
  card_scheme_1: { en: 'Credit card', ar: 'بطاقة ائتمان' },
  card_scheme_2: { en: 'Credit card', ar: 'بطاقة ائتمان' },
  generic_processor: { en: 'Online card payment', ar: 'دفع إلكتروني بالبطاقة' },
  wallet_token: { en: 'Digital wallet', ar: 'محفظة رقمية' },
  mobile_wallet: { en: 'Mobile wallet', ar: 'محفظة الجوال' },
  company_account: { en: 'Paid by your company', ar: 'مدفوع من شركتك' },
  bank_transfer: { en: 'Bank transfer', ar: 'تحويل بنكي' },
  cheque: { en: 'Cheque', ar: 'شيك' },
};

export const STATUS_NAMES: Record<PaymentStatus, Bilingual> = {
  completed: { en: 'Paid', ar: 'مدفوع' },
  pending: { en: 'Pending', ar: 'قيد الانتظار' },
  processing: { en: 'Processing', ar: 'قيد المعالجة' },
  failed: { en: 'Not completed', ar: 'لم تكتمل' },
  refunded: { en: 'Refunded', ar: 'مسترد' },
};

/** Row labels shared by the receipt types. */
export const LABELS = {
  receiptNumber: { en: 'Receipt No.', ar: 'رقم الإيصال' },
  paymentId: { en: 'Payment ID', ar: 'معرّف الدفعة' },
  orderId: { en: 'Order ID', ar: 'رقم الطلب' },
  paidAt: { en: 'Date paid', ar: 'تاريخ الدفع' },
  confirmedAt: { en: 'Date received', ar: 'تاريخ الاستلام' },
  method: { en: 'Payment method', ar: 'طريقة الدفع' },
  status: { en: 'Status', ar: 'الحالة' },
  company: { en: 'Company', ar: 'الشركة' },
  companyCr: { en: 'Company CR No.', ar: 'السجل التجاري للشركة' },
  contract: { en: 'Contract', ar: 'العقد' },
} satisfies Record<string, Bilingual>;
