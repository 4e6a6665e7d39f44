// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { apiCall, BusinessError, HttpError, withQuery } from './api-client.js';
import { createErrorHandler, EXPIRED_LOGIN_PATH, type ErrorTextKey } from './error-handler.js';

const TEXTS: Record<ErrorTextKey, string> = {
  'errors.tooManyRequests': 'Error: too many requests, please try again later!',
  'errors.internal': 'Error: internal server error, please contact the administrator!',
  'errors.demoOnly': 'This site is a demo only and has no server side!',
  'errors.withMessage': 'Error: {{message}}',
};

const setup = (path = '/token') => {
  const calls = { errors: [] as string[], infos: [] as string[], redirects: [] as string[], cleared: 0 };
  const handle = createErrorHandler({
    showError: (message) => calls.errors.push(message),
    showInfo: (message) => calls.infos.push(message),
    translate: (key, values) => TEXTS[key].replace('{{message}}', values?.['message'] ?? ''),
    redirect: (url) => calls.redirects.push(url),
    currentPath: () => path,
    clearSession: () => {
      calls.cleared += 1;
    },
  });
  return { handle, calls };
};

describe('the one error handler (spec §8)', () => {
  it('sends a 401 to /login?expired=true, leaving the stored user to the login page to forget', () => {
    const { handle, calls } = setup();
    handle(new HttpError(401, 'no permission'));
    expect(calls.redirects).toEqual([EXPIRED_LOGIN_PATH]);
    expect(EXPIRED_LOGIN_PATH).toBe('/login?expired=true');
    // Forgetting it before the navigation lands would let a guard send the browser to a plain /login.
    expect(calls.cleared).toBe(0);
    expect(calls.errors).toEqual([]);
  });

  it('forgets the user without redirecting again when already on /login', () => {
    const { handle, calls } = setup('/login');
    handle(new HttpError(401, 'no permission'));
    expect(calls.redirects).toEqual([]);
    expect(calls.cleared).toBe(1);
  });

  it('answers 429, 500 and 405 with their fixed texts', () => {
    const { handle, calls } = setup();
    handle(new HttpError(429, 'slow down'));
    handle(new HttpError(500, 'boom'));
    handle(new HttpError(405, 'nope'));
    expect(calls.errors).toEqual([TEXTS['errors.tooManyRequests'], TEXTS['errors.internal']]);
    expect(calls.infos).toEqual([TEXTS['errors.demoOnly']]);
  });

  it("prefixes other statuses and other errors with 'Error: '", () => {
    const { handle, calls } = setup();
    handle(new HttpError(403, 'state is empty or not same'));
    handle(new TypeError('Failed to fetch'));
    handle('plain value');
    handle(new Error(''));
    expect(calls.errors).toEqual([
      'Error: state is empty or not same',
      'Error: Failed to fetch',
      'Error: plain value',
      'Error: Error',
    ]);
  });

  it("shows a business failure's message as it is", () => {
    const { handle, calls } = setup();
    handle(new BusinessError('the redemption code is invalid'));
    expect(calls.errors).toEqual(['the redemption code is invalid']);
  });

  it('uses the fallback text for failures without an answer', () => {
    const { handle, calls } = setup();
    handle(new TypeError('Failed to fetch'), { fallback: 'request failed' });
    handle(new BusinessError('used code'), { fallback: 'request failed' });
    expect(calls.errors).toEqual(['request failed', 'used code']);
  });
});

describe('apiCall', () => {
  afterEach(() => vi.unstubAllGlobals());

  const answer = (status: number, body: unknown) =>
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
      ),
    );

  it('unwraps the envelope and parses data with the schema, sending the cookie', async () => {
    const fetchMock = answer(200, { success: true, message: '', data: 42 });
    vi.stubGlobal('fetch', fetchMock);
    await expect(
      apiCall('GET', '/api/x', { schema: z.number(), query: { p: 0, keyword: 'a b' } }),
    ).resolves.toEqual({
      message: '',
      data: 42,
    });
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/x?p=0&keyword=a+b',
      expect.objectContaining({ credentials: 'include' }),
    );
  });

  it('sends JSON bodies', async () => {
    const fetchMock = answer(200, { success: true, message: 'bind' });
    vi.stubGlobal('fetch', fetchMock);
    await expect(apiCall('POST', '/api/y', { body: { a: 1 } })).resolves.toEqual({
      message: 'bind',
      data: undefined,
    });
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/y',
      expect.objectContaining({
        method: 'POST',
        body: '{"a":1}',
        headers: { 'Content-Type': 'application/json' },
      }),
    );
  });

  it('throws a business failure for success: false', async () => {
    vi.stubGlobal('fetch', answer(200, { success: false, message: 'username or password is wrong' }));
    await expect(apiCall('GET', '/api/x')).rejects.toEqual(
      new BusinessError('username or password is wrong'),
    );
  });

  it('throws an HTTP error with the status for non-2xx answers', async () => {
    vi.stubGlobal('fetch', answer(401, { success: false, message: 'not logged in' }));
    const error = await apiCall('GET', '/api/x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 401, message: 'not logged in' });
  });

  it('builds query strings', () => {
    expect(withQuery('/a', {})).toBe('/a');
    expect(withQuery('/a', { x: '', y: undefined, z: true })).toBe('/a?x=&z=true');
    expect(withQuery('/a?b=1', { c: 2 })).toBe('/a?b=1&c=2');
  });
});
