import type { Catalogue } from '../catalogue.js';
import type { enPricing } from '../en/pricing.js';

/** Chinese texts: the price list. */
export const zhPricing: Catalogue<typeof enPricing> = {
  pricing: {
    title: '模型价格',
    intro: '您所在分组可用的模型及其价格，按计费所用的同一套倍率计算。',
    group: '分组 {{group}} · 分组倍率 ×{{ratio}}',
    visitor: '这里显示的是默认分组的价格；登录后可查看您所在分组的价格。',
    search: '搜索模型或提供方',
    owner: '提供方',
    allOwners: '全部提供方',
    order: {
      label: '排序',
      name: '名称',
      input: '输入价格',
      output: '输出价格',
    },
    currency: {
      label: '价格单位',
      usd: '美元',
      quota: '额度',
    },
    column: {
      model: '模型',
      owner: '提供方',
      channelTypes: '渠道类型',
      billedBy: '计费方式',
      input: '输入',
      output: '输出',
      cache_read: '缓存读取',
      cache_write: '缓存写入',
    },
    unit: {
      tokens: '每 1M tokens',
      image: '每张图片（1024×1024）',
      characters: '每 1M 字符',
      transcript: '每 1M 转写 tokens',
    },
    unpriced: '默认价格',
    unpricedHint: '该模型未设置价格：按默认模型倍率 30 计费。',
    count: '共 {{count}} 个模型',
  },
};
