import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { deeplAdaptor } from './deepl-adaptor.js';

describeAdaptorConformance({
  name: 'DeepL',
  adaptor: deeplAdaptor,
  type: CHANNEL_TYPE.deepL,
  model: 'deepl-zh',
  key: { header: 'authorization', scheme: 'DeepL-Auth-Key ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  // DeepL answers in one body: a stream is one chunk, never broken midway.
  oneBody: true,
  expected: {
    // One chunk; the prompt counted as one-api counts it: 'Hello, 你好 👋' is 18 bytes.
    'deepl-stream.recorded.sse': {
      usage: { prompt_tokens: 18, completion_tokens: 0, total_tokens: 18 },
      text: '你好，世界！🌍',
      content: '你好，世界！🌍',
    },
  },
});
