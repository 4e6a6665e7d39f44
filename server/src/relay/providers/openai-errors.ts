import type { UpstreamErrorInfo } from './adaptor.js';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Reads an upstream error body: OpenAI's `{error:{message,type,code}}`, else the first non-empty of
 * the fields other providers use (message, msg, err, error_msg, header.message, response.error.message).
 */
export const parseOpenAiStyleError = (body: unknown): UpstreamErrorInfo | undefined => {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = record['error'];
  if (typeof error === 'object' && error !== null) {
    const fields = error as Record<string, unknown>;
    const message = text(fields['message']);
    if (message !== '')
      return {
        message,
        type: text(fields['type']) || 'upstream_error',
        code: typeof fields['code'] === 'number' ? String(fields['code']) : text(fields['code']),
        param: text(fields['param']),
      };
  }
  const nested = (path: string[]): string => {
    let value: unknown = record;
    for (const key of path)
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return text(value);
  };
  const message =
    text(record['message']) ||
    text(record['msg']) ||
    text(record['err']) ||
    text(record['error_msg']) ||
    (typeof error === 'string' ? error : '') ||
    nested(['header', 'message']) ||
    nested(['response', 'error', 'message']);
  return message === '' ? undefined : { message, type: 'upstream_error', code: '' };
};
