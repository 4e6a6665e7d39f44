import type { Catalogue } from '../catalogue.js';
import type { enRedemption } from '../en/redemption.js';

/** Chinese texts: the redemption code list and form (admin). */
export const zhRedemption: Catalogue<typeof enRedemption> = {
  redemption: {
    title: '兑换码',
    add: '添加新的兑换码',
    addTitle: '创建新的兑换码',
    editTitle: '更新兑换码信息',
    searchPlaceholder: '搜索兑换码的 ID 或名称…',
    empty: '暂无兑换码。',
    id: 'ID',
    name: '名称',
    namePlaceholder: '请输入名称',
    nameHint: '下载的文件以此命名。',
    nameRequired: '请输入名称！',
    countRange: '生成数量必须是 1 到 100 之间的整数。',
    quota: '额度',
    quotaEquals: '等价金额：{{amount}}',
    count: '生成数量',
    countHint: '要生成的兑换码数量（1 到 100），生成后以文本文件下载。',
    createdTime: '创建时间',
    redeemedTime: '兑换时间',
    notRedeemed: '尚未兑换',
    status: { unused: '未使用', disabled: '已禁用', used: '已使用' },
    deleteConfirm: '删除兑换码 {{name}}？',
    created: '兑换码创建成功！',
    downloaded: '{{count}} 个兑换码已保存为 {{file}}。',
    updated: '兑换码更新成功！',
  },
};
