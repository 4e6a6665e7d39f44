import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { cozeAdaptor } from './coze-adaptor.js';

describeAdaptorConformance({
  name: 'Coze',
  adaptor: cozeAdaptor,
  type: CHANNEL_TYPE.coze,
  model: 'bot-7379462189365198898',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // Usage from conversation.chat.completed's counts; only the answer's deltas are text.
    'coze-stream.recorded.sse': {
      usage: { prompt_tokens: 5878, completion_tokens: 766, total_tokens: 6644 },
      text: '你好！I am your bot 🤖.',
      content: '你好！I am your bot 🤖.',
    },
  },
});
