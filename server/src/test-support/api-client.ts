import type { App } from '../app.js';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  readonly body: {
    success?: boolean;
    message?: string;
    data?: unknown;
    error?: { message: string };
  } & Record<string, unknown>;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** Send the body as given (a string), not JSON-encoded. */
  readonly raw?: boolean;
}

/** An in-process client of one app, with its own cookie jar (one browser). */
export const apiClient = (app: App) => {
  const jar = new Map<string, string>();

  const request = async (
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (jar.size > 0) headers['cookie'] = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let payload: string | undefined;
    if (body !== undefined) {
      payload = options.raw && typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await app.request(path, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attributes.some((attribute) => /max-age=0/i.test(attribute.trim()));
      if (expired || value === '') jar.delete(name.trim());
      else jar.set(name.trim(), value);
    }
    const text = await response.text();
    let parsed: ApiResponse['body'];
    try {
      parsed = JSON.parse(text) as ApiResponse['body'];
    } catch {
      parsed = {};
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  return {
    request,
    get: (path: string, options?: RequestOptions) => request('GET', path, undefined, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => request('POST', path, body, options),
    put: (path: string, body?: unknown, options?: RequestOptions) => request('PUT', path, body, options),
    delete: (path: string, options?: RequestOptions) => request('DELETE', path, undefined, options),
    cookies: jar,
    /** Logs in with a password; throws when the server refuses. */
    login: async (username: string, password: string) => {
      const response = await request('POST', '/api/user/login', { username, password });
      if (response.body.success !== true)
        throw new Error(`login failed: ${response.body.message ?? response.text}`);
      return response;
    },
  };
};

export type ApiClient = ReturnType<typeof apiClient>;
