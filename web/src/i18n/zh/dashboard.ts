import type { Catalogue } from '../catalogue.js';
import type { enDashboard } from '../en/dashboard.js';

/** Chinese texts: the usage dashboard. */
export const zhDashboard: Catalogue<typeof enDashboard> = {
  dashboard: {
    title: '数据看板',
    requests: '请求次数',
    promptTokens: '提示 tokens',
    completionTokens: '补全 tokens',
    quota: '消耗额度',
    model: '模型',
    username: '用户名',
    usernamePlaceholder: '完整的用户名',
    channel: '渠道 ID',
    channelPlaceholder: '例如 1',
    needUsername: '输入用户名以查看该用户的用量。',
    needChannel: '输入渠道 ID 以查看该渠道的用量。',
    emptyTitle: '此时间范围内没有用量',
    emptyDescription: '所选日期内转发的请求会显示在这里。',
    range: {
      '7': '最近 7 天',
      '30': '最近 30 天',
      custom: '自定义',
      from: '开始日期',
      to: '结束日期',
      invalid: '开始日期不能晚于结束日期。',
      tooLong: '时间范围最长 366 天。',
    },
    scope: {
      label: '查看对象',
      self: '我自己',
      all: '全部用户',
      user: '指定用户',
      channel: '指定渠道',
    },
    chart: {
      requests: '每日请求次数',
      tokens: '每日 tokens',
      quota: '每日消耗额度',
      models: '按模型统计',
    },
  },
};
