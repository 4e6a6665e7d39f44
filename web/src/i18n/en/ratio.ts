/** English texts: the per-model price editor of the ratio settings (beside the raw JSON). */
export const enRatio = {
  ratioEditor: {
    tabTable: 'Per-model prices',
    tabJson: 'JSON',
    intro:
      'A model ratio of 1 costs $2 per 1M input tokens ($0.002 per 1K); output tokens cost the model ratio × the completion ratio. A change here rewrites the JSON; save the section to store it.',
    search: 'Search models',
    filter: {
      all: 'All',
      changed: 'Changed',
      missing: 'Without a ratio ({{count}})',
    },
    column: {
      model: 'Model',
      modelRatio: 'Model ratio',
      completionRatio: 'Completion ratio',
      input: 'Input / 1M',
      output: 'Output / 1M',
    },
    state: {
      default: 'default',
      custom: 'changed',
      missing: 'no ratio',
    },
    served: 'served',
    rule: 'rule: {{ratio}}',
    none: 'none',
    edit: 'Edit',
    reset: 'Reset',
    resetLabel: 'Reset {{model}} to its default',
    editLabel: 'Edit {{model}}',
    add: 'Add “{{model}}”',
    empty: 'No model matches.',
    invalid:
      'The model or completion ratio JSON is not a valid map of names to non-negative numbers; fix it in the JSON tab to use the table.',
    dialog: {
      title: 'Price of {{model}}',
      modelRatio: 'Model ratio',
      modelRatioHint: 'Empty: no ratio (such a model is billed at ratio 30).',
      completionRatio: 'Completion ratio',
      completionRatioHint: 'Empty: the rule for this name ({{ratio}}).',
      prices: 'Input {{input}} · output {{output}} per 1M tokens',
      noPrice: 'No price: requests are billed at ratio 30.',
      apply: 'Apply',
    },
  },
};
