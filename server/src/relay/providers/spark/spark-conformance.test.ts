import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { sparkAdaptor } from './spark-adaptor.js';

describeAdaptorConformance({
  name: 'iFlytek Spark (WebSocket)',
  adaptor: sparkAdaptor,
  type: CHANNEL_TYPE.xunfei,
  model: 'Spark-Max',
  // APPID|APISecret|APIKey: the APISecret only signs the URL, it is never sent.
  key: { signed: (secret) => `5f8a2c1e|${secret}|apikeyconformance0000000000000000` },
  webSocket: true,
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    'spark-stream.recorded.sse': {
      usage: { prompt_tokens: 5, completion_tokens: 18, total_tokens: 23 },
      text: '你好！我是讯飞星火认知大模型 ✨，很高兴为你服务。',
      content: '你好！我是讯飞星火认知大模型 ✨，很高兴为你服务。',
    },
  },
});
