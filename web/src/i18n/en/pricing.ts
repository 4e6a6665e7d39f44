/** English texts: the price list. */
export const enPricing = {
  pricing: {
    title: 'Pricing',
    intro:
      'The models your group can use and what they cost, worked out from the same ratios the billing uses.',
    group: 'Group {{group}} · group ratio ×{{ratio}}',
    visitor: 'These are the prices of the default group; sign in to see those of your own group.',
    search: 'Search models or owners',
    owner: 'Owner',
    allOwners: 'All owners',
    order: {
      label: 'Sort by',
      name: 'Name',
      input: 'Input price',
      output: 'Output price',
    },
    currency: {
      label: 'Show prices in',
      usd: 'US dollars',
      quota: 'Quota',
    },
    column: {
      model: 'Model',
      owner: 'Owner',
      channelTypes: 'Channel types',
      billedBy: 'Billed',
      input: 'Input',
      output: 'Output',
      cache_read: 'Cache read',
      cache_write: 'Cache write',
    },
    unit: {
      tokens: 'per 1M tokens',
      image: 'per image (1024×1024)',
      characters: 'per 1M characters',
      transcript: 'per 1M transcript tokens',
    },
    unpriced: 'default price',
    unpricedHint: 'No price is set for this model: it is billed at the default model ratio of 30.',
    count: '{{count}} models',
  },
};
