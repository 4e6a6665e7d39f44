import { describe, expect, it } from 'vitest';
import { LIST_ORDERS } from '@sluice/contract/list-orders';
import { orderOf } from './list-orders.js';

describe('list orders', () => {
  it('start with the default order', () => {
    expect(LIST_ORDERS.tokens[0]).toBe('');
    expect(LIST_ORDERS.users[0]).toBe('');
  });

  it('read a chosen value as one of the orders, anything else as the default', () => {
    expect(orderOf(LIST_ORDERS.users, 'request_count')).toBe('request_count');
    expect(orderOf(LIST_ORDERS.tokens, 'remain_quota')).toBe('remain_quota');
    expect(orderOf(LIST_ORDERS.tokens, 'request_count')).toBe('');
    expect(orderOf(LIST_ORDERS.tokens, null)).toBe('');
  });
});
