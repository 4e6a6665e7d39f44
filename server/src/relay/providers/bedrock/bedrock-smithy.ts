/**
 * The AWS SDK's own building blocks: Smithy's SigV4 signer and event-stream codec, and the SHA-256
 * the SDK uses on Node (`@smithy/hash-node`: node:crypto's hashes, not a JavaScript one).
 */
export { Hash } from '@smithy/hash-node';
export { SignatureV4 } from '@smithy/signature-v4';
export { EventStreamCodec } from '@smithy/eventstream-codec';
export { fromUtf8 } from '@smithy/util-utf8';
