import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { vi } from 'vitest';
import type * as Crypto from 'node:crypto';
import { describeAdaptorConformance } from '../../../test-support/adaptor-conformance.js';
import {
  bedrockConverseRecordings,
  bedrockMidStreamErrorWith,
} from '../../../test-support/bedrock-frames.js';
import { bedrockAdaptor } from './bedrock-adaptor.js';

// Converse answers carry no id: Sluice makes one at random, fixed here so every split answers the same bytes.
vi.mock('node:crypto', async (original) => ({
  ...(await original<typeof Crypto>()),
  randomUUID: () => '00000000-0000-4000-8000-000000000000',
}));

// The conformance key has no `|`: a Bedrock API key, sent as a Bearer token (SigV4 channels are
// checked by bedrock-adaptor.test.ts, the signature verified).
describeAdaptorConformance({
  name: 'AWS Bedrock (Converse)',
  adaptor: bedrockAdaptor,
  type: CHANNEL_TYPE.aws,
  model: 'llama3-70b-8192',
  key: { header: 'authorization', scheme: 'Bearer ' },
  recordings: bedrockConverseRecordings(),
  midStreamErrorWith: bedrockMidStreamErrorWith,
  expected: {
    'bedrock-converse-stream.recorded.json': {
      usage: { prompt_tokens: 19, completion_tokens: 21, total_tokens: 40 },
      text: '你好！我是 Llama 🦙，很高兴为你效劳。',
      content: '你好！我是 Llama 🦙，很高兴为你效劳。',
    },
    'bedrock-converse-tools-stream.recorded.json': {
      usage: { prompt_tokens: 375, completion_tokens: 58, total_tokens: 433 },
      text: '让我查一下。top_song{"sign": "WZPZ"}',
      content: '让我查一下。',
    },
  },
});
