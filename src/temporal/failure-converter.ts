// The failure converter of every Temporal client and worker of ours, loaded by path
// (DataConverter.failureConverterPath): the client and worker require it, and the worker bundles it
// into the workflow sandbox. It moves each failure's message and stack trace into an encoded
// payload, so the payload codec encrypts them too: an activity error that quotes an e-mail address
// (an SMTP refusal) or an id number never reaches workflow history in clear text. Failure types
// (IDENTITY_ERROR, OperatorRejection, …) stay readable; the API maps refusals by type.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
