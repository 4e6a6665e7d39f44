import type { Catalogue } from '../catalogue.js';
import type { enSecurity } from '../en/security.js';

/** Chinese texts: account security (the audit log). */
export const zhSecurity: Catalogue<typeof enSecurity> = {
  audit: {
    title: '审计日志',
    intro:
      '管理员通过控制台或 API 所做的每一次更改，以及每一次登录。密钥、密码、令牌和客户端密钥均已遮蔽。记录不可编辑或删除，仅在超级管理员设定的保留期后过期清除。',
    who: '用户',
    object: '对象',
    action: '操作',
    from: '开始时间',
    to: '结束时间',
    any: '全部',
    search: '查询',
    exportCsv: '导出 CSV',
    empty: '没有匹配的审计记录。',
    time: '时间',
    ip: 'IP',
    detail: '详情',
    show: '变更',
    detailTitle: '审计记录 #{{id}}',
    before: '变更前',
    after: '变更后',
    nothing: '无',
    objects: {
      channel: '渠道',
      user: '用户',
      option: '设置',
      redemption: '兑换码',
      log: '日志',
      session: '登录',
    },
    actions: {
      create: '创建',
      update: '修改',
      update_status: '修改状态',
      delete: '删除',
      delete_disabled: '删除已禁用',
      manage: '管理',
      top_up: '充值',
      sign_in: '登录成功',
      sign_in_failed: '登录失败',
    },
  },
};
