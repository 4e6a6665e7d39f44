/** English texts: the rate limits of a token and of a user. */
export const enLimits = {
  limits: {
    title: 'Rate limits',
    hint: 'Empty or 0: no limit. Every limit counts the last minute, across all Sluice instances.',
    rpm: 'Requests per minute',
    tpm: 'Tokens per minute',
    tpmHint: 'Prompt and completion tokens, as billed',
    concurrency: 'Requests in flight at once',
    invalid: 'Rate limits must be whole numbers, 0 or more (empty: no limit).',
  },
};
