/** Anthropic's models: the default list of Anthropic channels (as one-api's adaptor lists them). */
export const ANTHROPIC_MODELS: readonly string[] = [
  'claude-instant-1.2',
  'claude-2.0',
  'claude-2.1',
  'claude-3-haiku-20240307',
  'claude-3-5-haiku-20241022',
  'claude-3-5-haiku-latest',
  'claude-3-sonnet-20240229',
  'claude-3-opus-20240229',
  'claude-3-5-sonnet-20240620',
  'claude-3-5-sonnet-20241022',
  'claude-3-5-sonnet-latest',
];
