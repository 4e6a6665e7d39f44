import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { tencentAdaptor } from './tencent-adaptor.js';

describeAdaptorConformance({
  name: 'Tencent Hunyuan',
  adaptor: tencentAdaptor,
  type: CHANNEL_TYPE.tencent,
  model: 'hunyuan-lite',
  // AppId|SecretId|SecretKey: the SecretKey only signs, it is never sent.
  key: { signed: (secret) => `1300000000|AKIDconformance0000000000000000000000|${secret}` },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // Hunyuan's Usage is the running total: the last event's counts.
    'tencent-stream.recorded.sse': {
      usage: { prompt_tokens: 3, completion_tokens: 14, total_tokens: 17 },
      text: '您好！我是腾讯混元大模型 🤖，很高兴为您服务。',
      content: '您好！我是腾讯混元大模型 🤖，很高兴为您服务。',
    },
  },
});
