/**
 * Every error code of both spec documents, with its HTTP status and its message in English and Arabic.
 * This table is the only place that maps a code to a status; `alsoStatus` lists the other statuses the
 * spec gives a code on some routes, which a route definition may pick (statusOverrides).
 */
export interface ErrorDefinition {
  status: number;
  alsoStatus?: readonly number[];
  en: string;
  ar: string;
}

export const errorCodes = {
  // --- Auth ---
  AUTH_REQUIRED: { status: 401, en: 'Authentication required', ar: 'يلزم تسجيل الدخول' },
  AUTH_SESSION_EXPIRED: {
    status: 401,
    en: 'Your session has expired, please sign in again',
    ar: 'انتهت صلاحية الجلسة، يرجى تسجيل الدخول مرة أخرى',
  },
  AUTH_ACCOUNT_DEACTIVATED: { status: 401, en: 'This account has been deactivated', ar: 'تم إيقاف هذا الحساب' },
  // Same code for a wrong code and an unknown phone or e-mail: the text must not reveal whether the account exists.
  AUTH_INVALID_OTP: { status: 401, en: 'The code is invalid', ar: 'رمز التحقق غير صحيح' },
  AUTH_EXPIRED_OTP: { status: 401, en: 'The code has expired, please request a new one', ar: 'انتهت صلاحية رمز التحقق، يرجى طلب رمز جديد' },
  AUTH_NO_CREDENTIAL: { status: 401, en: 'A phone number or email address is required', ar: 'يلزم إدخال رقم الجوال أو البريد الإلكتروني' },
  // 401 on register; 409 on change-phone and verify-change-phone (their route definitions pick it).
  AUTH_PHONE_EXISTS: { status: 401, alsoStatus: [409], en: 'This phone number is already registered', ar: 'رقم الجوال هذا مسجل مسبقاً' },
  AUTH_EMAIL_EXISTS: { status: 401, en: 'This email address is already registered', ar: 'هذا البريد الإلكتروني مسجل مسبقاً' },
  AUTH_CONSENT_REQUIRED: { status: 401, en: 'All required consents must be given', ar: 'يلزم تقديم جميع الموافقات المطلوبة' },
  AUTH_RATE_LIMIT_EXCEEDED: {
    status: 401,
    en: 'Too many code requests, please try again later',
    ar: 'تم تجاوز الحد المسموح به لطلبات رمز التحقق، يرجى المحاولة لاحقاً',
  },
  AUTH_PHONE_UPDATE_FAILED: {
    status: 502,
    en: 'The phone number could not be updated, please try again later',
    ar: 'تعذر تحديث رقم الجوال، يرجى المحاولة لاحقاً',
  },
  AUTH_BLOCKLISTED: { status: 403, en: 'Access from this account or device is blocked', ar: 'تم حظر الوصول من هذا الحساب أو الجهاز' },
  // Non-super_admin on compliance routes: 401 by spec, because only the exact code AUTH_FORBIDDEN maps to 403.
  FORBIDDEN: { status: 401, en: 'Access denied', ar: 'تم رفض الوصول' },
  AUTH_FORBIDDEN: { status: 403, en: 'You do not have permission to perform this action', ar: 'ليست لديك صلاحية لتنفيذ هذا الإجراء' },

  // --- Validation ---
  VALIDATION_ERROR: { status: 400, en: 'The request contains invalid data', ar: 'يحتوي الطلب على بيانات غير صالحة' },
  VALIDATION_ICCID_INVALID: {
    status: 400,
    en: 'The SIM card number must be exactly 19 digits',
    ar: 'يجب أن يتكون رقم الشريحة من 19 رقماً بالضبط',
  },
  VALIDATION_SIM_LIMIT_EXCEEDED: {
    status: 400,
    en: 'You have reached the maximum number of SIM cards allowed for your identity type',
    ar: 'لقد بلغت الحد الأقصى لعدد الشرائح المسموح به لنوع هويتك',
  },
  VALIDATION_INVALID_INPUT: {
    status: 400,
    en: 'This field does not match the company payment mode',
    ar: 'هذا الحقل لا يتوافق مع طريقة الدفع الخاصة بالشركة',
  },

  // --- Activation (including the package and operator lookups it performs) ---
  PACKAGE_NOT_FOUND: { status: 404, en: 'Package not found', ar: 'لم يتم العثور على الباقة' },
  ACTIVATION_NOT_FOUND: { status: 404, en: 'Activation not found', ar: 'لم يتم العثور على طلب التفعيل' },
  OPERATOR_NOT_FOUND: { status: 404, en: 'Operator not found', ar: 'لم يتم العثور على المشغل' },
  ACTIVATION_FAILED: { status: 422, en: 'The activation could not be completed', ar: 'تعذر إتمام التفعيل' },
  ACTIVATION_ICCID_INVALID: { status: 422, en: 'The operator did not accept this SIM card number', ar: 'لم يقبل المشغل رقم الشريحة هذا' },
  ACTIVATION_ESIM_DISABLED: { status: 422, en: 'eSIM activation is not available', ar: 'تفعيل الشريحة الإلكترونية غير متاح' },
  ACTIVATION_CODE_INVALID: { status: 422, en: 'The eSIM activation code is invalid', ar: 'رمز تفعيل الشريحة الإلكترونية غير صالح' },
  ACTIVATION_ESIM_UNSUPPORTED_OPERATOR: {
    status: 422,
    en: 'This operator does not support eSIM',
    ar: 'هذا المشغل لا يدعم الشريحة الإلكترونية',
  },
  ACTIVATION_PACKAGE_NOT_ON_CONTRACT: {
    status: 409,
    en: 'This package is not assigned to you under your company contract',
    ar: 'هذه الباقة غير مخصصة لك ضمن عقد شركتك',
  },
  ACTIVATION_LINK_NOT_REDEEMED: {
    status: 409,
    en: 'Please open your invitation link before activating',
    ar: 'يرجى فتح رابط الدعوة قبل التفعيل',
  },
  ACTIVATION_SEAT_ALREADY_USED: {
    status: 409,
    en: 'A SIM card is already activated or being activated for this invitation',
    ar: 'توجد شريحة مفعّلة أو قيد التفعيل لهذه الدعوة',
  },
  OPERATOR_UNAVAILABLE: {
    status: 502,
    en: 'The operator service is currently unavailable, please try again later',
    ar: 'خدمة المشغل غير متاحة حالياً، يرجى المحاولة لاحقاً',
  },
  OPERATOR_TIMEOUT: {
    status: 504,
    en: 'The operator did not respond in time, please try again later',
    ar: 'لم يستجب المشغل في الوقت المحدد، يرجى المحاولة لاحقاً',
  },

  // --- Identity ---
  IDENTITY_ERROR: { status: 422, en: 'Identity verification could not be completed', ar: 'تعذر إتمام التحقق من الهوية' },

  // --- Magic link ---
  MAGIC_LINK_INVALID: { status: 401, en: 'The invitation link is invalid', ar: 'رابط الدعوة غير صالح' },
  MAGIC_LINK_ALREADY_USED: { status: 401, en: 'This invitation link has already been used', ar: 'تم استخدام رابط الدعوة هذا مسبقاً' },
  MAGIC_LINK_REVOKED: { status: 401, en: 'This invitation link has been cancelled', ar: 'تم إلغاء رابط الدعوة هذا' },
  MAGIC_LINK_EXPIRED: { status: 401, en: 'This invitation link has expired', ar: 'انتهت صلاحية رابط الدعوة هذا' },
  MAGIC_LINK_USER_ALREADY_ACTIVE: { status: 409, en: 'Your SIM card is already activated', ar: 'شريحتك مفعّلة بالفعل' },

  // --- Company ---
  COMPANY_NOT_FOUND: { status: 404, en: 'Company not found', ar: 'لم يتم العثور على الشركة' },
  COMPANY_ALREADY_REGISTERED: { status: 409, en: 'You have already registered a company', ar: 'لقد سجلت شركة مسبقاً' },
  COMPANY_CR_EXISTS: {
    status: 409,
    en: 'A company with this commercial registration number already exists',
    ar: 'توجد شركة مسجلة برقم السجل التجاري هذا',
  },
  COMPANY_CREATE_FAILED: {
    status: 502,
    en: 'The company could not be registered, please try again later',
    ar: 'تعذر تسجيل الشركة، يرجى المحاولة لاحقاً',
  },
  COMPANY_INVALID_TRANSITION: {
    status: 409,
    en: 'This action is not allowed for the current company status',
    ar: 'لا يمكن تنفيذ هذا الإجراء في الحالة الحالية للشركة',
  },
  COMPANY_NOT_APPROVED: { status: 403, en: 'The company has not been approved yet', ar: 'لم تتم الموافقة على الشركة بعد' },
  COMPANY_SUSPENDED: { status: 403, en: 'The company account is suspended', ar: 'حساب الشركة موقوف' },
  COMPANY_REJECTED: { status: 403, en: 'The company registration was rejected', ar: 'تم رفض تسجيل الشركة' },
  COMPANY_NOT_READY: {
    status: 409,
    en: 'Invitations cannot be sent until the contract is confirmed and paid',
    ar: 'لا يمكن إرسال الدعوات قبل تأكيد العقد وسداد قيمته',
  },
  // Also a per-entry code on link minting: see itemCodes.
  COMPANY_BALANCE_EXCEEDED: { status: 409, en: 'The company available balance is insufficient', ar: 'الرصيد المتاح للشركة غير كافٍ' },

  // --- Quote ---
  QUOTE_NOT_FOUND: { status: 404, en: 'Quote not found', ar: 'لم يتم العثور على عرض السعر' },
  QUOTE_INVALID_STATE: {
    status: 409,
    en: 'This action is not allowed for the current quote status',
    ar: 'لا يمكن تنفيذ هذا الإجراء في الحالة الحالية لعرض السعر',
  },
  QUOTE_CREATE_FAILED: {
    status: 502,
    en: 'The quote could not be created, please try again later',
    ar: 'تعذر إنشاء عرض السعر، يرجى المحاولة لاحقاً',
  },
  QUOTE_VERSION_SUPERSEDED: { status: 409, en: 'A newer version of this quote exists', ar: 'توجد نسخة أحدث من عرض السعر هذا' },
  QUOTE_COUNTER_FAILED: {
    status: 502,
    en: 'The counter-offer could not be created, please try again later',
    ar: 'تعذر إنشاء العرض المقابل، يرجى المحاولة لاحقاً',
  },
  QUOTE_PACKAGE_NOT_FOUND: { status: 400, en: 'One or more packages are not available', ar: 'باقة واحدة أو أكثر غير متاحة' },

  // --- Contract ---
  CONTRACT_NOT_FOUND: { status: 404, en: 'Contract not found', ar: 'لم يتم العثور على العقد' },
  CONTRACT_ALREADY_EXISTS: { status: 409, en: 'The company already has an active contract', ar: 'لدى الشركة عقد نشط بالفعل' },
  CONTRACT_ITEM_NOT_FOUND: { status: 404, en: 'Contract line not found', ar: 'لم يتم العثور على بند العقد' },
  CONTRACT_PACKAGE_PRICE_MISSING: {
    status: 400,
    en: 'A package in the quote has no business price',
    ar: 'إحدى الباقات في عرض السعر ليس لها سعر خاص بالشركات',
  },
  CONTRACT_CREATE_FAILED: {
    status: 502,
    en: 'The contract could not be created, please try again later',
    ar: 'تعذر إنشاء العقد، يرجى المحاولة لاحقاً',
  },

  // --- Contract payment ---
  CONTRACT_PAYMENT_MODE_INVALID: {
    status: 409,
    en: 'This payment is not allowed for the contract payment mode',
    ar: 'هذه الدفعة غير مسموح بها وفق طريقة الدفع الخاصة بالعقد',
  },
  CONTRACT_PAYMENT_BELOW_TOTAL: {
    status: 409,
    en: 'The payment amount must be at least the contract total',
    ar: 'يجب ألا يقل مبلغ الدفعة عن إجمالي قيمة العقد',
  },
  CONTRACT_PAYMENT_IDEMPOTENCY_CONFLICT: {
    status: 409,
    en: 'This payment reference was already used with different details',
    ar: 'تم استخدام مرجع الدفعة هذا مسبقاً ببيانات مختلفة',
  },
  CONTRACT_PAYMENT_DOCUMENT_INVALID_MIME: {
    status: 400,
    en: 'The document must be a PDF, PNG or JPEG file',
    ar: 'يجب أن يكون المستند بصيغة PDF أو PNG أو JPEG',
  },
  CONTRACT_PAYMENT_DOCUMENT_TOO_LARGE: {
    status: 400,
    en: 'The document must not exceed 5 MB',
    ar: 'يجب ألا يتجاوز حجم المستند 5 ميجابايت',
  },
  CONTRACT_PAYMENT_RECORD_FAILED: {
    status: 502,
    en: 'The payment could not be recorded, please try again later',
    ar: 'تعذر تسجيل الدفعة، يرجى المحاولة لاحقاً',
  },
  CONTRACT_PAYMENT_DOCUMENT_NOT_FOUND: { status: 404, en: 'Payment document not found', ar: 'لم يتم العثور على مستند الدفعة' },

  // --- Roster ---
  // Also a per-entry code on link send, export and revoke: see itemCodes.
  ROSTER_ENTRY_NOT_FOUND: { status: 404, en: 'Beneficiary not found', ar: 'لم يتم العثور على المستفيد' },
  ROSTER_LINK_OPEN: {
    status: 409,
    en: 'This beneficiary has an open invitation, please revoke it first',
    ar: 'لدى هذا المستفيد دعوة مفتوحة، يرجى إلغاؤها أولاً',
  },
  ROSTER_SEAT_CONSUMED: { status: 409, en: 'This beneficiary has already used their invitation', ar: 'استخدم هذا المستفيد دعوته مسبقاً' },

  // --- Payment ---
  ORDER_NOT_FOUND: { status: 404, en: 'Order not found', ar: 'لم يتم العثور على الطلب' },
  PAYMENT_INTENT_FAILED: {
    status: 402,
    en: 'The payment could not be started, please try again',
    ar: 'تعذر بدء عملية الدفع، يرجى المحاولة مرة أخرى',
  },
  PAYMENT_WALLET_FAILED: { status: 402, en: 'The wallet payment could not be completed', ar: 'تعذر إتمام الدفع عبر المحفظة' },
  PAYMENT_MOBILE_WALLET_FAILED: {
    status: 402,
    en: 'The mobile wallet payment could not be started',
    ar: 'تعذر بدء الدفع عبر محفظة الجوال',
  },
  PAYMENT_RECEIPT_FAILED: { status: 402, en: 'The receipt could not be retrieved', ar: 'تعذر استرجاع الإيصال' },
  PAYMENT_ORDER_INVALID_STATUS: {
    status: 402,
    en: 'This order cannot be paid in its current status',
    ar: 'لا يمكن دفع هذا الطلب في حالته الحالية',
  },
  PAYMENT_IDEMPOTENCY_CONFLICT: {
    status: 402,
    en: 'This payment request conflicts with an earlier one',
    ar: 'يتعارض طلب الدفع هذا مع طلب سابق',
  },
  PAYMENT_METHOD_NOT_SUPPORTED_FOR_ORDER: {
    status: 422,
    en: 'This payment method is not available for this order',
    ar: 'طريقة الدفع هذه غير متاحة لهذا الطلب',
  },
  PAYMENT_MISMATCH_RECORD_FAILED: {
    status: 500,
    en: 'The payment could not be processed, please try again later',
    ar: 'تعذرت معالجة الدفعة، يرجى المحاولة لاحقاً',
  },

  // --- Webhook ---
  WEBHOOK_SIGNATURE_MISSING: { status: 400, en: 'The signature is missing', ar: 'التوقيع مفقود' },
  WEBHOOK_SIGNATURE_INVALID: { status: 400, en: 'The signature is invalid', ar: 'التوقيع غير صالح' },

  // --- Store ---
  STORE_PROVIDER_PAYMENT_EXTERNAL: {
    status: 422,
    en: 'Payment for store orders is currently unavailable',
    ar: 'الدفع لطلبات المتجر غير متاح حالياً',
  },
  STORE_DISABLED: { status: 422, en: 'The store is currently unavailable', ar: 'المتجر غير متاح حالياً' },
  STORE_PRODUCT_NOT_FOUND: { status: 404, en: 'Product not found', ar: 'لم يتم العثور على المنتج' },
  STORE_PRODUCT_INACTIVE: { status: 422, en: 'This product is no longer available', ar: 'هذا المنتج لم يعد متاحاً' },
  STORE_CURRENCY_UNSUPPORTED: { status: 400, en: 'This currency is not supported', ar: 'هذه العملة غير مدعومة' },
  STORE_KYC_REQUIRED: {
    status: 422,
    en: 'This product requires identity verification, which is not available at the moment',
    ar: 'يتطلب هذا المنتج التحقق من الهوية، وهو غير متاح حالياً',
  },
  STORE_ORDER_NOT_FOUND: { status: 404, en: 'Store order not found', ar: 'لم يتم العثور على طلب المتجر' },
  STORE_SYNC_UNAVAILABLE: {
    status: 503,
    en: 'Catalog sync is unavailable right now, please try again later',
    ar: 'مزامنة الكتالوج غير متاحة حالياً، يرجى المحاولة لاحقاً',
  },
  STORE_ORDER_NOT_REQUEUEABLE: {
    status: 409,
    en: 'This order cannot be resubmitted for processing',
    ar: 'لا يمكن إعادة إرسال هذا الطلب للمعالجة',
  },
  STORE_REQUEUE_UNAVAILABLE: {
    status: 503,
    en: 'The order could not be resubmitted for processing, please try again later',
    ar: 'تعذرت إعادة إرسال الطلب للمعالجة، يرجى المحاولة لاحقاً',
  },
  STORE_CHARGE_BELOW_MINIMUM: {
    status: 422,
    en: 'The order amount is below the minimum allowed',
    ar: 'مبلغ الطلب أقل من الحد الأدنى المسموح به',
  },
  STORE_PRICE_CHANGED: {
    status: 409,
    en: 'The price has changed, please review the new price',
    ar: 'تغيّر السعر، يرجى مراجعة السعر الجديد',
  },
  STORE_PROVIDER_NOT_FOUND: { status: 404, en: 'Provider not found', ar: 'لم يتم العثور على المزوّد' },
  STORE_PROVIDER_UNAVAILABLE: { status: 422, en: 'The provider is currently unavailable', ar: 'المزوّد غير متاح حالياً' },

  // --- Admin user ---
  ADMIN_USER_NOT_FOUND: { status: 404, en: 'User not found', ar: 'لم يتم العثور على المستخدم' },
  ADMIN_USER_PHONE_EXISTS: { status: 409, en: 'A user with this phone number already exists', ar: 'يوجد مستخدم مسجل برقم الجوال هذا' },
  ADMIN_USER_EMAIL_EXISTS: {
    status: 409,
    en: 'A user with this email address already exists',
    ar: 'يوجد مستخدم مسجل بهذا البريد الإلكتروني',
  },
  ADMIN_USER_CREATE_FAILED: {
    status: 502,
    en: 'The user could not be created, please try again later',
    ar: 'تعذر إنشاء المستخدم، يرجى المحاولة لاحقاً',
  },
  ADMIN_USER_PROFILE_NOT_CREATED: {
    status: 502,
    en: 'The user profile could not be created, please try again later',
    ar: 'تعذر إنشاء ملف المستخدم، يرجى المحاولة لاحقاً',
  },
  // Ours: areas (managedAreas / managedAreasWrite) are for admin users; the target's role refuses them.
  ADMIN_USER_AREAS_NOT_ALLOWED: {
    status: 409,
    en: 'Only admin users can be given managed areas',
    ar: 'لا يمكن تعيين المجالات المُدارة إلا لمستخدمي الإدارة',
  },
  ADMIN_USER_DELETE_FAILED: {
    status: 502,
    en: 'The user could not be deleted, please try again later',
    ar: 'تعذر حذف المستخدم، يرجى المحاولة لاحقاً',
  },

  // --- Document ---
  DOCUMENT_TYPE_NOT_FOUND: { status: 404, en: 'Document type not found', ar: 'نوع المستند غير موجود' },
  DOCUMENT_NOT_FOUND: { status: 404, en: 'Document not found', ar: 'لم يتم العثور على المستند' },
  DOCUMENT_RENDER_FAILED: {
    status: 500,
    en: 'The document could not be generated, please try again later',
    ar: 'تعذر إنشاء المستند، يرجى المحاولة لاحقاً',
  },

  // --- Generic ---
  NOT_FOUND: { status: 404, en: 'The requested item was not found', ar: 'العنصر المطلوب غير موجود' },
  RATE_LIMIT_EXCEEDED: { status: 429, en: 'Too many requests, please try again later', ar: 'عدد الطلبات كبير جداً، يرجى المحاولة لاحقاً' },
  // Ours (the spec has no code for these): a method the path does not have; a dependency that is
  // briefly unavailable (a webhook that could not hand its event over: the provider redelivers).
  METHOD_NOT_ALLOWED: { status: 405, en: 'This method is not allowed on this path', ar: 'هذه الطريقة غير مسموح بها على هذا المسار' },
  INTERNAL_ERROR: { status: 500, en: 'Something went wrong, please try again later', ar: 'حدث خطأ ما، يرجى المحاولة لاحقاً' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    en: 'The service is temporarily unavailable, please try again later',
    ar: 'الخدمة غير متاحة مؤقتاً، يرجى المحاولة لاحقاً',
  },
  NOT_IMPLEMENTED: { status: 501, en: 'This feature is not available yet', ar: 'هذه الميزة غير متاحة بعد' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCodes;

/** Codes that appear as data inside 200 responses (roster rows, link entries), never as HTTP errors. */
export const itemCodes = {
  // --- Roster: per-row rejection codes of POST /b2b/roster/stage ---
  ROSTER_ROW_INVALID_NAME: { en: 'The name is missing or invalid', ar: 'الاسم مفقود أو غير صالح' },
  ROSTER_ROW_INVALID_PHONE: { en: 'The phone number is invalid', ar: 'رقم الجوال غير صالح' },
  ROSTER_ROW_INVALID_EMAIL: { en: 'The email address is invalid', ar: 'البريد الإلكتروني غير صالح' },
  ROSTER_ROW_INVALID_IDENTITY_TYPE: {
    en: 'The identity type must be citizen, resident or visitor',
    ar: 'يجب أن يكون نوع الهوية مواطناً أو مقيماً أو زائراً',
  },
  ROSTER_ROW_INVALID_NATIONALITY: { en: 'The nationality is invalid', ar: 'الجنسية غير صالحة' },
  ROSTER_ROW_MISSING_CONTACT: { en: 'A phone number or email address is required', ar: 'يلزم إدخال رقم الجوال أو البريد الإلكتروني' },
  ROSTER_ROW_DUPLICATE_IN_BATCH: { en: 'This person appears more than once in the file', ar: 'هذا الشخص مكرر في الملف' },
  ROSTER_ROW_ALREADY_ON_ROSTER: { en: 'This person is already on the list', ar: 'هذا الشخص مدرج مسبقاً في قائمة المستفيدين' },
  ROSTER_ROW_CONTACT_EXISTS: {
    en: 'This phone number or email address is already registered',
    ar: 'رقم الجوال أو البريد الإلكتروني مسجل مسبقاً',
  },

  // --- Link: per-entry codes of link send, export and reissue-expired ---
  ROSTER_ENTRY_NOT_FOUND: { en: 'Beneficiary not found', ar: 'لم يتم العثور على المستفيد' },
  LINK_USER_ALREADY_ACTIVE: { en: 'This beneficiary already has an activated SIM card', ar: 'لدى هذا المستفيد شريحة مفعّلة بالفعل' },
  LINK_PACKAGE_NOT_ASSIGNED: { en: 'No package is assigned to this beneficiary', ar: 'لم يتم تخصيص باقة لهذا المستفيد' },
  ACTIVATION_QUOTA_EXCEEDED: { en: 'No seats are left on this contract line', ar: 'لا توجد مقاعد متبقية في بند العقد هذا' },
  COMPANY_BALANCE_EXCEEDED: { en: 'The company available balance is insufficient', ar: 'الرصيد المتاح للشركة غير كافٍ' },
  LINK_PACKAGE_UNAVAILABLE: { en: 'The assigned package is no longer available', ar: 'الباقة المخصصة لم تعد متاحة' },
  LINK_DELIVERY_FAILED: { en: 'The invitation could not be delivered', ar: 'تعذر إرسال الدعوة' },

  // --- Link: per-entry skip codes of link revoke (plus ROSTER_ENTRY_NOT_FOUND) ---
  LINK_ALREADY_USED: { en: 'The invitation has already been used and cannot be revoked', ar: 'تم استخدام الدعوة مسبقاً ولا يمكن إلغاؤها' },
  NO_ACTIVE_LINK: { en: 'There is no active invitation to revoke', ar: 'لا توجد دعوة نشطة لإلغائها' },
} as const satisfies Record<string, { en: string; ar: string }>;
export type ItemCode = keyof typeof itemCodes;

/**
 * Reconciliation codes: structured log records and rows of reconciliation_records (support lists and
 * resolves them, GET /admin/reconciliation-records), never HTTP errors. A processor answer that does
 * not match the payment; a second charge for an order already paid; money taken for an activation that
 * was cancelled or failed, or a payment that succeeded after its order was cancelled (refund it).
 */
export const reconciliationCodes = ['PAYMENT_PROVIDER_AMOUNT_MISMATCH', 'PAYMENT_DUPLICATE_CHARGE', 'PAYMENT_REFUND_REQUIRED'] as const;
export type ReconciliationCode = (typeof reconciliationCodes)[number];
