// @vitest-environment happy-dom
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { PricingRow } from '@sluice/contract/schemas/pricing';
import type { Status } from '@sluice/contract/schemas/status';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n/i18n.js';
import { writeStorage } from '../../lib/storage.js';
import { renderScreen, stubApi } from '../../test-support/render.js';
import { PricingPage } from './pricing-page.js';

const set = (input: number | null, output: number | null, image: number | null = null) => ({
  input,
  output,
  cache_read: input,
  cache_write: input,
  image,
});

const ROW: PricingRow = {
  model_name: 'gpt-4o',
  owner_by: 'openai',
  channel_types: [CHANNEL_TYPE.openAi, CHANNEL_TYPE.azure],
  billed_by: 'tokens',
  quota_type: 0,
  model_ratio: 2.5,
  completion_ratio: 4,
  cache_read_ratio: 1,
  cache_write_ratio: 1,
  model_price: 0,
  priced: true,
  enable_groups: ['vip'],
  quota: set(3_750_000, 15_000_000),
  usd: set(7.5, 30),
};

const UNPRICED: PricingRow = {
  ...ROW,
  model_name: 'my-model',
  owner_by: 'custom',
  channel_types: [CHANNEL_TYPE.custom],
  priced: false,
  quota: set(45_000_000, 45_000_000),
  usd: set(90, 90),
};

const status = (pricingPublic: boolean): Status => ({
  version: 'v1',
  start_time: 1,
  email_verification: false,
  github_oauth: false,
  github_client_id: '',
  lark_client_id: '',
  system_name: 'Sluice',
  logo: '',
  footer_html: '',
  wechat_qrcode: '',
  wechat_login: false,
  server_address: '',
  turnstile_check: false,
  turnstile_site_key: '',
  top_up_link: '',
  chat_link: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  oidc: false,
  oidc_client_id: '',
  oidc_well_known: '',
  pricing_public: pricingPublic,
});

const ANSWER = { group: 'vip', group_ratio: { vip: 1.5 }, quota_per_unit: 500000 };

describe('the Pricing page', () => {
  beforeEach(async () => {
    localStorage.clear();
    await i18n.changeLanguage('en');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("shows the user's group, each model's prices in dollars or quota, and filters by owner", async () => {
    writeStorage('user', { id: 2, username: 'alice', display_name: 'Alice', role: 1, status: 1 });
    stubApi({ '/api/pricing': { success: true, data: [ROW, UNPRICED], ...ANSWER } });
    renderScreen(<PricingPage />, { path: '/pricing' });
    await waitFor(() => expect(screen.getAllByTestId('pricing-row')).toHaveLength(2));
    expect(screen.getByTestId('pricing-group').textContent).toBe('Group vip · group ratio ×1.5');
    const gpt = screen.getAllByTestId('pricing-row')[0]!;
    expect(within(gpt).getByTestId('pricing-input').textContent).toBe('$7.50');
    expect(within(gpt).getByTestId('pricing-output').textContent).toBe('$30.00');
    expect(within(gpt).getByText('Azure OpenAI')).toBeTruthy();
    expect(within(screen.getAllByTestId('pricing-row')[1]!).getByText('default price')).toBeTruthy();
    fireEvent.click(within(screen.getByTestId('pricing-currency')).getByText('Quota'));
    await waitFor(() => expect(within(gpt).getByTestId('pricing-output').textContent).toBe('15,000,000'));
    fireEvent.change(screen.getByTestId('pricing-search'), { target: { value: 'custom' } });
    await waitFor(() => expect(screen.getAllByTestId('pricing-row')).toHaveLength(1));
    expect(screen.getByTestId('pricing-model').textContent).toBe('my-model');
  });

  it('waits for the status record before deciding on a visitor, then sends them to log in unless public', async () => {
    stubApi({ '/api/pricing': { success: true, data: [ROW], ...ANSWER } });
    const { router } = renderScreen(<PricingPage />, { path: '/pricing' });
    expect(screen.getByTestId('list-loading')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/pricing');
    writeStorage('status', status(false));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it("shows a visitor the default group's list when it is public", async () => {
    writeStorage('status', status(true));
    stubApi({ '/api/pricing': { success: true, data: [ROW], ...ANSWER, group: 'default' } as never });
    renderScreen(<PricingPage />, { path: '/pricing' });
    await waitFor(() => expect(screen.getAllByTestId('pricing-row')).toHaveLength(1));
    expect(screen.getByTestId('pricing-group').textContent).toContain('default group');
  });
});
