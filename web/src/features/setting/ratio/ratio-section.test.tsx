// @vitest-environment happy-dom
import { notifications } from '@mantine/notifications';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
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
  { key: 'GroupRatio', value: '{"default":1}' },
  { key: 'CacheReadRatio', value: '{}' },
  { key: 'CacheWriteRatio', value: '{}' },
  { key: 'GroupRateLimits', value: '{}' },
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

  it('sets the groups’ rate limits beside the group ratio, saved with the ratios', async () => {
    const fetch = start();
    // Once the stored options are in the form (the group ratio shown):
    await waitFor(() =>
      expect(screen.getByTestId<HTMLTextAreaElement>('option-GroupRatio').value).not.toBe(''),
    );
    const limits = screen.getByTestId<HTMLTextAreaElement>('option-GroupRateLimits');
    expect(limits.value).toBe('');
    const value = '{"vip": {"rpm": 60, "tpm": 100000, "concurrency": 5}}';
    fireEvent.change(limits, { target: { value } });
    fireEvent.click(screen.getByTestId('save-ratio'));
    await waitFor(() =>
      expect(writes(fetch)).toEqual([{ url: '/api/option/', updates: [{ key: 'GroupRateLimits', value }] }]),
    );
  });
});
