import type { Catalogue } from '../catalogue.js';
import type { enAlerts } from '../en/alerts.js';

/** Chinese texts: alerts (webhooks and their delivery log). */
export const zhAlerts: Catalogue<typeof enAlerts> = {
  alerts: {
    title: '告警',
    intro:
      '渠道被禁用或恢复、额度即将用尽时，会发送邮件，并以签名的 JSON 推送到以下 Webhook；同一对象的同类告警在冷却时间内不会重复发送。',
    webhooks: 'Webhook',
    noWebhooks: '尚未配置 Webhook。',
    name: 'Webhook',
    url: '地址',
    events: '事件',
    allEvents: '全部事件',
    sendTest: '发送测试',
    testDelivered: '测试已送达 {{name}}。',
    testFailed: '测试未能送达 {{name}}：{{error}}',
    editHint:
      '该列表为机密，保存后不再显示：请输入完整列表以替换（JSON 列表，包含 name、url、至少 16 个字符的 secret，以及可选的 events）。',
    editLabel: '替换 Webhook 列表（JSON）',
    save: '保存 Webhook',
    saved: 'Webhook 已保存。',
    settings: {
      cooldown: '冷却时间（分钟，0 为不限）',
      attempts: '每次投递的尝试次数（1 到 10）',
      retryBase: '首次重试等待（秒，之后逐次加倍）',
    },
    saveSettings: '保存设置',
    settingsSaved: '告警设置已保存。',
    deliveries: '投递记录',
    noDeliveries: '暂无投递记录。',
    time: '时间',
    event: '事件',
    status: '状态',
    any: '全部',
    attempts: '尝试次数',
    answer: '响应',
    error: '最近错误',
    statuses: { pending: '重试中', delivered: '已送达', failed: '失败' },
    eventNames: {
      channelDisabled: '渠道已禁用',
      channelEnabled: '渠道已恢复',
      channelCooledDown: '渠道熔断冷却',
      channelRecovered: '渠道熔断恢复',
      budgetThreshold: '预算达到阈值',
      userQuotaLow: '用户额度不足',
      tokenQuotaLow: '令牌额度不足',
      test: '测试',
    },
  },
};
