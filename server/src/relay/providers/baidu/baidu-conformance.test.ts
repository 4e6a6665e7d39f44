import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { baiduAdaptor } from './baidu-adaptor.js';

// The conformance key has no `|`: a Qianfan v2 key, sent as a bearer (v1's access token is tested beside).
describeAdaptorConformance({
  name: 'Baidu',
  adaptor: baiduAdaptor,
  type: CHANNEL_TYPE.baidu,
  model: 'ERNIE-4.0-8K',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    'baidu-stream.recorded.sse': {
      usage: { prompt_tokens: 5, completion_tokens: 13, total_tokens: 18 },
      text: '当然可以，以下是一些建议的自驾游路线 🚗。',
      content: '当然可以，以下是一些建议的自驾游路线 🚗。',
    },
  },
});
