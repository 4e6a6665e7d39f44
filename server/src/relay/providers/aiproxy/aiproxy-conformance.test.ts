import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { aiProxyLibraryAdaptor } from './aiproxy-adaptor.js';

const CITED = '\n\n参考文档：\n1. [README](https://example.com/readme)\n';

describeAdaptorConformance({
  name: 'AI Proxy knowledge base',
  adaptor: aiProxyLibraryAdaptor,
  type: CHANNEL_TYPE.aiProxyLibrary,
  model: 'gpt-3.5-turbo',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // No usage: the text, the cited documents included, is counted locally.
    'aiproxy-stream.recorded.sse': {
      usage: undefined,
      text: `Sluice 是一个兼容 one-api 的网关 🚰。${CITED}`,
      content: `Sluice 是一个兼容 one-api 的网关 🚰。${CITED}`,
    },
  },
});
