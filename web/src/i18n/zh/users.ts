import type { Catalogue } from '../catalogue.js';
import type { enUsers } from '../en/users.js';

/** Chinese texts: user management (list, row actions, create). */
export const zhUsers: Catalogue<typeof enUsers> = {
  userAdmin: {
    title: '管理用户',
    add: '添加新的用户',
    addTitle: '创建新用户账户',
    searchPlaceholder: '搜索用户的 ID，用户名，显示名称，以及邮箱地址 …',
    empty: '没有匹配的用户。',
    username: '用户名',
    usernamePlaceholder: '请输入用户名，最长 {{max}} 位',
    displayName: '显示名称',
    displayNamePlaceholder: '请输入显示名称（可选）',
    password: '密码',
    passwordPlaceholder: '请输入密码，最短 {{min}} 位',
    group: '分组',
    stats: '统计信息',
    statsQuota: '剩余',
    statsUsed: '已用',
    statsRequests: '请求',
    roleLabel: '用户角色',
    promote: '提升',
    demote: '降级',
    deleteConfirm: '删除用户 {{name}}？其令牌将失效。',
    required: '请输入用户名和密码。',
    created: '用户账户创建成功！',
    order: {
      label: '排序方式',
      default: '默认排序',
      quota: '按剩余额度排序',
      usedQuota: '按已用额度排序',
      requestCount: '按请求次数排序',
    },
    role: {
      common: '普通用户',
      admin: '管理员',
      root: '超级管理员',
      unknown: '未知身份',
    },
    status: {
      activated: '已激活',
      banned: '已封禁',
    },
  },
};
