import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { zhipuAdaptor } from './zhipu-adaptor.js';

// The conformance key is not `id.secret`: sent as it is, as the bearer (the JWT is tested beside).
describeAdaptorConformance({
  name: 'Zhipu',
  adaptor: zhipuAdaptor,
  type: CHANNEL_TYPE.zhipu,
  model: 'glm-4',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    'zhipu-stream.recorded.sse': {
      usage: { prompt_tokens: 60, completion_tokens: 3, total_tokens: 63 },
      text: '土星 🪐',
      content: '土星 🪐',
    },
  },
});
