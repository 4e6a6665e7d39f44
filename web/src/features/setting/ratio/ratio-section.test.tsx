// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n/i18n.js';
import { renderScreen, stubApi, type Answer } from '../../../test-support/render.js';
import { RatioSection } from './ratio-section.js';

const ROOT = { id: 1, username: 'root', display_name: 'Root', role: 100, status: 1 };

/** The shipped defaults, and the options as stored: gpt-4 already changed, my-model added. */
const DEFAULTS = [
  { key: 'ModelRatio', value: '{"gpt-4":15,"gpt-4o-mini":0.075}' },
  { key: 'CompletionRatio', value: '{}' },
  { key: 'GroupRatio', value: '{"default":1}' },
];
const OPTIONS = [
  { key: 'ModelRatio', value: '{"gpt-4":20,"gpt-4o-mini":0.075,"my-model":3}' },
  { key: 'CompletionRatio', value: '{}' },
  { key: 'GroupRatio', value: '{"default":1,"vip":0.5}' },
  { key: 'CacheReadRatio', value: '{}' },
  { key: 'CacheWriteRatio', value: '{}' },
  { key: 'GroupRateLimits', value: '{"vip":{"rpm":60,"tpm":100000,"concurrency":5}}' },
  { key: 'GroupRoutingStrategies', value: '{"vip":"round_robin","old":"lowest_latency"}' },
  { key: 'RoutingStrategy', value: 'weighted_random' },
];

type Update = { key: string; value: string };

/** The bodies of the option writes so far: one-api's single PUT and Sluice's batch. */
const writes = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls
    .map((call) => call as unknown as [string, RequestInit | undefined])
    .filter(([url, init]) => url.startsWith('/api/option/') && init?.method === 'PUT')
    .map(([url, init]) => {
      const body = JSON.parse(typeof init?.body === 'string' ? init.body : '') as Update | Update[];
      return { url, updates: Array.isArray(body) ? body : [body] };
    });

const rowOf = (model: string) => {
  const row = screen.getAllByTestId('price-row').find((element) => element.dataset['model'] === model);
  if (!row) throw new Error(`no row ${model}`);
  return row;
};

const start = (batch: Answer = { success: true }) => {
  const fetch = stubApi({
    '/api/option/batch': batch,
    '/api/option/defaults': { success: true, data: DEFAULTS },
    '/api/option/': { success: true, data: OPTIONS },
    '/api/channel/served_models': { success: true, data: ['gpt-4', 'served-missing'] },
    '/api/status': { success: true, data: {} },
  });
  renderScreen(<RatioSection />, { path: '/setting' });
  return fetch;
};

describe('the ratio section: per-model prices beside the JSON, saved all or nothing', () => {
  beforeEach(async () => {
    localStorage.clear();
    localStorage.setItem('user', JSON.stringify(ROOT));
    notifications.clean();
    await i18n.changeLanguage('en');
    if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { value: new EventTarget() });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists the models with their state and prices, and filters the served ones without a ratio', async () => {
    start();
    await waitFor(() => expect(rowOf('served-missing').dataset['state']).toBe('missing'));
    expect(rowOf('gpt-4').dataset['state']).toBe('custom');
    expect(rowOf('gpt-4o-mini').dataset['state']).toBe('default');
    expect(within(rowOf('gpt-4')).getByTestId('price-input').textContent).toBe('$40.00');
    expect(within(rowOf('gpt-4')).getByTestId('price-output').textContent).toBe('$80.00');
    fireEvent.click(screen.getByText('Without a ratio (1)'));
    await waitFor(() =>
      expect(screen.getAllByTestId('price-row').map((row) => row.dataset['model'])).toEqual([
        'served-missing',
      ]),
    );
  });

  it('resets a row to its shipped price and saves it through the JSON the section holds', async () => {
    const fetch = start();
    await waitFor(() => expect(rowOf('gpt-4').dataset['state']).toBe('custom'));
    fireEvent.click(within(rowOf('gpt-4')).getByTestId('price-reset'));
    await waitFor(() => expect(rowOf('gpt-4').dataset['state']).toBe('default'));
    const json = screen.getByTestId<HTMLTextAreaElement>('option-ModelRatio').value;
    expect(JSON.parse(json)).toEqual({ 'gpt-4': 15, 'gpt-4o-mini': 0.075, 'my-model': 3 });
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() =>
      expect(writes(fetch)).toEqual([{ url: '/api/option/', updates: [{ key: 'ModelRatio', value: json }] }]),
    );
  });

  it('shows a refused save under the button, names the field, and opens the JSON at it', async () => {
    start({ success: false, message: 'ModelRatio: "x" must be a non-negative number' });
    await waitFor(() => expect(rowOf('gpt-4').dataset['state']).toBe('custom'));
    fireEvent.change(screen.getByTestId('option-ModelRatio'), {
      target: { value: '{"gpt-4": 20, "x": -1}' },
    });
    fireEvent.change(screen.getByTestId('option-GroupRatio'), { target: { value: '{"default": 0.5}' } });
    expect(screen.getByTestId('price-invalid')).toBeTruthy();
    fireEvent.click(screen.getByTestId('save-ratio'));
    const refused = await screen.findByTestId('save-refused-ratio');
    expect(refused.textContent).toBe('Nothing was saved: ModelRatio: "x" must be a non-negative number');
    expect(screen.getByTestId('option-ModelRatio').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('option-GroupRatio').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.getByTestId('ratio-view-json').getAttribute('aria-selected')).toBe('true');
  });

  /** The row of a group in the group limits editor, and one of its inputs by name. */
  const groupRow = (group: string) => {
    const row = screen
      .getAllByTestId('group-limit-row')
      .find((element) => element.dataset['group'] === group);
    if (!row) throw new Error(`no group row ${group}`);
    return row;
  };
  const input = (group: string, name: string) => {
    const element = groupRow(group).querySelector<HTMLInputElement>(`input[name="${name}"]`);
    if (!element) throw new Error(`no ${name} in ${group}`);
    return element;
  };
  const strategy = (group: string) => {
    const element = groupRow(group).querySelector<HTMLSelectElement>('select[name="strategy"]');
    if (!element) throw new Error(`no strategy in ${group}`);
    return element;
  };

  it('sets a group’s limits and routing in its row, saved with the ratios in one batch', async () => {
    const fetch = start();
    await waitFor(() => expect(input('vip', 'rpm_limit').value).toBe('60'));
    expect(screen.getAllByTestId('group-limit-row').map((row) => row.dataset['group'])).toEqual([
      'default',
      'vip',
      'old',
    ]);
    expect(within(groupRow('old')).getByText('not in the group ratio')).toBeTruthy();
    expect(input('default', 'rpm_limit').value).toBe('');
    expect(strategy('vip').value).toBe('round_robin');
    expect(strategy('default').selectedOptions[0]?.textContent).toBe('Server default (Weighted random)');

    fireEvent.change(input('default', 'rpm_limit'), { target: { value: '30' } });
    fireEvent.change(input('default', 'concurrency_limit'), { target: { value: '2' } });
    fireEvent.change(input('vip', 'tpm_limit'), { target: { value: '' } });
    fireEvent.change(strategy('vip'), { target: { value: 'least_in_flight' } });
    fireEvent.change(strategy('old'), { target: { value: '' } });
    expect(screen.queryByTestId('group-limit-invalid')).toBeNull();
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() => expect(writes(fetch)).toHaveLength(1));
    const [write] = writes(fetch);
    expect(write?.url).toBe('/api/option/batch');
    expect(write?.updates).toEqual([
      { key: 'GroupRateLimits', value: expect.any(String) as string },
      { key: 'GroupRoutingStrategies', value: '{"vip":"least_in_flight"}' },
    ]);
    expect(JSON.parse(write?.updates[0]?.value ?? '')).toEqual({
      vip: { rpm: 60, concurrency: 5 },
      default: { rpm: 30, concurrency: 2 },
    });
  });

  it('refuses a limit that is not a whole number from 0 up, says so in the row, and saves nothing', async () => {
    const fetch = start();
    await waitFor(() => expect(input('vip', 'rpm_limit').value).toBe('60'));
    fireEvent.change(input('default', 'tpm_limit'), { target: { value: '10000000000000000000' } });
    const message = await within(groupRow('default')).findByTestId('group-limit-invalid');
    expect(message.textContent).toBe(
      'Each limit must be a whole number from 0 to 1,000,000,000,000,000 (empty: no limit).',
    );
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() =>
      expect(document.body.textContent).toContain('Nothing was saved: fix the limits of default first.'),
    );
    expect(writes(fetch)).toEqual([]);

    await act(() => i18n.changeLanguage('zh'));
    expect(within(groupRow('default')).getByTestId('group-limit-invalid').textContent).toBe(
      '每项限制须为 0 到 1,000,000,000,000,000 之间的整数（留空：不限制）。',
    );
    fireEvent.change(input('default', 'tpm_limit'), { target: { value: '0' } });
    await waitFor(() => expect(screen.queryByTestId('group-limit-invalid')).toBeNull());
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() => expect(writes(fetch)).toHaveLength(1));
    expect(writes(fetch)[0]?.updates).toEqual([
      {
        key: 'GroupRateLimits',
        value: '{"vip":{"rpm":60,"tpm":100000,"concurrency":5},"default":{"tpm":0}}',
      },
    ]);
    expect(writes(fetch)[0]?.url).toBe('/api/option/');
  });
});
