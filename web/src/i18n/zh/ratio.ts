import type { Catalogue } from '../catalogue.js';
import type { enRatio } from '../en/ratio.js';

/** Chinese texts: the per-model price editor of the ratio settings (beside the raw JSON). */
export const zhRatio: Catalogue<typeof enRatio> = {
  ratioEditor: {
    tabTable: '按模型定价',
    tabJson: 'JSON',
    intro:
      '模型倍率 1 即每 1M 输入 token $2（每 1K $0.002）；输出 token 的价格为模型倍率 × 补全倍率。这里的修改会改写 JSON，保存本节后生效。',
    search: '搜索模型',
    filter: {
      all: '全部',
      changed: '已修改',
      missing: '未设置倍率（{{count}}）',
    },
    column: {
      model: '模型',
      modelRatio: '模型倍率',
      completionRatio: '补全倍率',
      input: '输入 / 1M',
      output: '输出 / 1M',
    },
    state: {
      default: '默认',
      custom: '已修改',
      missing: '无倍率',
    },
    served: '渠道提供',
    rule: '规则：{{ratio}}',
    none: '无',
    edit: '编辑',
    reset: '重置',
    resetLabel: '将 {{model}} 重置为默认值',
    editLabel: '编辑 {{model}}',
    add: '添加“{{model}}”',
    empty: '没有匹配的模型。',
    invalid: '模型倍率或补全倍率的 JSON 不是名称到非负数的映射；请先在 JSON 标签页中修正，再使用表格。',
    dialog: {
      title: '{{model}} 的价格',
      modelRatio: '模型倍率',
      modelRatioHint: '留空：没有倍率（此类模型按倍率 30 计费）。',
      completionRatio: '补全倍率',
      completionRatioHint: '留空：按此名称的规则（{{ratio}}）。',
      prices: '每 1M token：输入 {{input}} · 输出 {{output}}',
      noPrice: '没有价格：请求按倍率 30 计费。',
      apply: '应用',
    },
  },
  groupLimits: {
    title: '分组限制与路由',
    hint: '分组倍率中的每个分组一行。限制由该分组的所有用户共享，所有 Sluice 实例合计；留空或 0：不限制。令牌与用户另有各自的限制。保存本节后生效。',
    ratio: '倍率 {{ratio}}',
    notInRatio: '不在分组倍率中',
    none: '还没有分组：请先在上方的分组倍率中添加。',
    invalid: '每项限制须为 0 到 1,000,000,000,000,000 之间的整数（留空：不限制）。',
    invalidSave: '未保存任何内容：请先修正 {{groups}} 的限制。',
    strategy: '路由策略',
    strategyDefault: '服务器默认',
    strategyDefaultIs: '服务器默认（{{strategy}}）',
    strategies: {
      weighted_random: '加权随机',
      round_robin: '轮询',
      least_in_flight: '进行中请求最少',
      lowest_latency: '延迟最低',
    },
  },
};
