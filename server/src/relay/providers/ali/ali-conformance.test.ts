import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { aliAdaptor } from './ali-adaptor.js';

describeAdaptorConformance({
  name: 'Alibaba DashScope',
  adaptor: aliAdaptor,
  type: CHANNEL_TYPE.ali,
  model: 'qwen-turbo',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    'ali-stream.recorded.sse': {
      usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
      text: '我是通义千问 🤖。',
      content: '我是通义千问 🤖。',
    },
  },
});
