/**
 * The AWS SDK's own event-stream codec (Smithy's), which frames and checks Bedrock's binary streams.
 */
export { EventStreamCodec } from '@smithy/eventstream-codec';
export { fromUtf8 } from '@smithy/util-utf8';
