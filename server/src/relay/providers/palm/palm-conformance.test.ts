import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import { loadRecordings } from '../../../test-support/adaptor-conformance-support.js';
import { palmAdaptor } from './palm-adaptor.js';

describeAdaptorConformance({
  name: 'PaLM',
  adaptor: palmAdaptor,
  type: CHANNEL_TYPE.palm,
  model: 'PaLM-2',
  key: { header: 'x-goog-api-key' },
  recordings: loadRecordings(new URL('./', import.meta.url)),
  // PaLM answers in one body: a stream is one chunk, never broken midway.
  oneBody: true,
  expected: {
    // PaLM reports no usage: the text is counted locally.
    'palm-stream.recorded.sse': {
      usage: undefined,
      text: 'Bonjour ! Je suis PaLM 🌴, enchanté.',
      content: 'Bonjour ! Je suis PaLM 🌴, enchanté.',
    },
  },
});
