import QRCode from 'qrcode';

/**
 * The PNG QR code of an eSIM activation code (`LPA:1$<smdp>$<matchingId>`), rendered on demand and
 * never stored: GET /activations/:id/esim-qr, GET /store/orders/:id/esim-qr and the QR e-mail's
 * inline image all draw it here.
 */
export function activationCodeQrPng(activationCode: string): Promise<Buffer> {
  return QRCode.toBuffer(activationCode, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 512 });
}
