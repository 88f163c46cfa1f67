/**
 * failedReason of the pending activations, failureReason of the store orders (unpaid: expired; paid, not
 * issued: failed) an account's deletion ended. Its own module: the store's run reads it too.
 */
export const ACCOUNT_DELETED = 'ACCOUNT_DELETED';
