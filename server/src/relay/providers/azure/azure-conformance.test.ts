import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { azureAdaptor } from './azure-adaptor.js';

describeAdaptorConformance({
  name: 'Azure OpenAI',
  adaptor: azureAdaptor,
  type: CHANNEL_TYPE.azure,
  model: 'gpt-4o',
  key: { header: 'api-key' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  expected: {
    // The default API version gets no stream_options: no usage, the text counted from the chunks; the
    // prompt_filter_results chunk (no choices) never reaches the client.
    'azure-stream.recorded.sse': {
      usage: undefined,
      text: '早上好，Azure ☁️ 用户！',
      content: '早上好，Azure ☁️ 用户！',
    },
  },
});
