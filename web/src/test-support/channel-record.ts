import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { Channel } from '@sluice/contract/schemas/channel';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';

/** A channel as GET /api/channel answers it (no key), with the fields a test cares about changed. */
export const channelRecord = (change: Partial<Channel> = {}): Channel => ({
  id: 1,
  type: CHANNEL_TYPE.openAi,
  key: '',
  status: CHANNEL_STATUS.enabled,
  name: 'openai',
  weight: 0,
  created_time: 1,
  test_time: 0,
  response_time: 0,
  base_url: '',
  other: '',
  balance: 0,
  balance_updated_time: 0,
  models: 'gpt-4o-mini,gpt-4o',
  group: 'default',
  used_quota: 0,
  model_mapping: '',
  priority: 0,
  config: '',
  system_prompt: '',
  test_model: '',
  ...change,
});
