import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { cohereAdaptor } from './cohere-adaptor.js';

describeAdaptorConformance({
  name: 'Cohere',
  adaptor: cohereAdaptor,
  type: CHANNEL_TYPE.cohere,
  model: 'command-r-plus',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // Usage from message-end's billed units, not its token counts.
    'cohere-stream.recorded.sse': {
      usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
      text: '你好！I am Command 🤖, glad to help.',
      content: '你好！I am Command 🤖, glad to help.',
    },
    'cohere-stream-tools.recorded.sse': {
      usage: { prompt_tokens: 37, completion_tokens: 21, total_tokens: 58 },
      text: 'get_weather{"location": "Paris"}',
      content: '',
    },
  },
});
