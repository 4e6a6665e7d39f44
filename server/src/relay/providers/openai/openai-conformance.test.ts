import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { createOpenAiAdaptor } from './openai-adaptor.js';

describeAdaptorConformance({
  name: 'OpenAI',
  adaptor: createOpenAiAdaptor(),
  type: CHANNEL_TYPE.openAi,
  model: 'gpt-4o',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // Usage asked for and given: onFinish bills it and counts no text.
    'openai-stream.recorded.sse': {
      usage: { prompt_tokens: 19, completion_tokens: 12, total_tokens: 31 },
      text: '',
      content: '你好！很高兴见到你 👋 How can I help?',
    },
    // An upstream that ignores stream_options: no usage, the text counted from the chunks.
    'openai-stream-without-usage.recorded.sse': {
      usage: undefined,
      text: 'Grüße aus 北京 🎉，再见',
      content: 'Grüße aus 北京 🎉，再见',
    },
  },
});
