import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { anthropicAdaptor } from './anthropic-adaptor.js';

describeAdaptorConformance({
  name: 'Anthropic',
  adaptor: anthropicAdaptor,
  type: CHANNEL_TYPE.anthropic,
  model: 'claude-sonnet-4-20250514',
  key: { header: 'x-api-key' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // Input tokens from message_start, output tokens from message_delta.
    'anthropic-stream.recorded.sse': {
      usage: { prompt_tokens: 21, completion_tokens: 24, total_tokens: 45 },
      text: '你好！我是 Claude 🤖。很高兴为你效劳。',
      content: '你好！我是 Claude 🤖。很高兴为你效劳。',
    },
  },
});
