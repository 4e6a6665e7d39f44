import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { geminiAdaptor } from './gemini-adaptor.js';

describeAdaptorConformance({
  name: 'Gemini',
  adaptor: geminiAdaptor,
  type: CHANNEL_TYPE.gemini,
  model: 'gemini-2.0-flash',
  key: { header: 'x-goog-api-key' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // CRLF-framed, no end marker: the relay ends it; usage is the last usageMetadata.
    'gemini-stream.recorded.sse': {
      usage: { prompt_tokens: 8, completion_tokens: 17, total_tokens: 25 },
      text: '你好！今天天气真好 ☀️，适合散步 🚶‍♀️。',
      content: '你好！今天天气真好 ☀️，适合散步 🚶‍♀️。',
    },
  },
});
