import type { ClientFormat } from '../client-format.js';
import { anthropicErrorBody } from './anthropic-error-body.js';
import { anthropicFromHub } from './anthropic-from-hub.js';
import { anthropicStreamWriter } from './anthropic-stream-writer.js';
import { anthropicToHub } from './anthropic-to-hub.js';

/** Anthropic's Messages API as a client format: read into the hub, answered back in its shapes. */
export const anthropicClient: ClientFormat = {
  name: 'anthropic',
  toHub: (body) => anthropicToHub(body),
  fromHub: (completion, context) => anthropicFromHub(completion, context),
  streamWriter: (context) => anthropicStreamWriter(context),
  errorBody: (error) => anthropicErrorBody(error),
};
