import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { vertexAdaptor } from './vertex-adaptor.js';

/** A service account the adaptor only reads (the token source, which signs with it, is tested apart). */
const config = {
  region: 'us-central1',
  vertex_ai_project_id: 'sluice-conformance',
  vertex_ai_adc: JSON.stringify({
    type: 'service_account',
    project_id: 'sluice-conformance',
    private_key_id: '0123456789abcdef',
    private_key: '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n',
    client_email: 'relay@sluice-conformance.iam.gserviceaccount.com',
    token_uri: 'http://127.0.0.1:9/token',
  }),
};
const folder = new URL('./', import.meta.url);

describeAdaptorConformance({
  name: 'Vertex AI, Gemini',
  adaptor: vertexAdaptor,
  type: CHANNEL_TYPE.vertexAi,
  model: 'gemini-2.0-flash-001',
  key: { header: 'authorization', scheme: 'Bearer ' },
  accessToken: true,
  config,
  recordings: loadRecordings(folder, 'vertex-gemini'),
  expected: {
    // CRLF-framed, no end marker; usage is the last usageMetadata.
    'vertex-gemini-stream.recorded.sse': {
      usage: { prompt_tokens: 9, completion_tokens: 15, total_tokens: 24 },
      text: '你好！今天在 Vertex AI 上 ☁️，一切顺利 🚀。',
      content: '你好！今天在 Vertex AI 上 ☁️，一切顺利 🚀。',
    },
  },
});

describeAdaptorConformance({
  name: 'Vertex AI, Claude',
  adaptor: vertexAdaptor,
  type: CHANNEL_TYPE.vertexAi,
  model: 'claude-3-5-sonnet-v2@20241022',
  key: { header: 'authorization', scheme: 'Bearer ' },
  accessToken: true,
  config,
  recordings: loadRecordings(folder, 'vertex-claude'),
  expected: {
    // Input tokens from message_start, output tokens from message_delta.
    'vertex-claude-stream.recorded.sse': {
      usage: { prompt_tokens: 14, completion_tokens: 19, total_tokens: 33 },
      text: '你好！我是 Vertex AI 上的 Claude 🤖。有什么可以帮你？',
      content: '你好！我是 Vertex AI 上的 Claude 🤖。有什么可以帮你？',
    },
  },
});
