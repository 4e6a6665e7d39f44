/** The AWS SDK's own building blocks: Smithy's SigV4 signer and event-stream codec, the SDK's SHA-256. */
export { Sha256 } from '@aws-crypto/sha256-js';
export { SignatureV4 } from '@smithy/signature-v4';
export { EventStreamCodec } from '@smithy/eventstream-codec';
export { fromUtf8, toUtf8 } from '@smithy/util-utf8';
