// @vitest-environment happy-dom
import { act, cleanup, render, renderHook } from '@testing-library/react';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Providers } from '../../app/providers.js';
import { createQueryClient } from '../../lib/query-client.js';
import type { StoredConversation } from '../../lib/stored-conversation.js';
import { ReplyStats } from './reply-stats.js';
import { stoppedReplyCost } from './stopped-cost.js';
import { usePlaygroundChat } from './use-playground-chat.js';

const encoder = new TextEncoder();
const REQUEST_ID = 'req-stopped-1';

const logRow = (requestId: string) => ({
  id: 1,
  user_id: 1,
  created_at: 1,
  type: LOG_TYPE.consume,
  content: '',
  username: 'u',
  token_name: 'k',
  model_name: 'gpt-4o',
  quota: 1234,
  prompt_tokens: 9,
  completion_tokens: 3,
  channel: 1,
  request_id: requestId,
  elapsed_time: 1,
  is_stream: true,
  client_format: 'openai',
});
const page = (rows: unknown[]) =>
  new Response(JSON.stringify({ success: true, message: '', data: rows, total: rows.length }), {
    headers: { 'content-type': 'application/json' },
  });

/** A stream that sends one chunk, then stays open until the fetch is aborted. */
const openStream = (signal: AbortSignal | null | undefined) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'));
        signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
      },
    }),
    { headers: { 'content-type': 'text/event-stream', 'x-sluice-request-id': REQUEST_ID } },
  );

const conversation: StoredConversation = {
  id: 'c1',
  userId: 1,
  title: '',
  updatedAt: 0,
  settings: { format: 'openai', model: 'gpt-4o', system: '' },
  turns: [],
};

describe('the cost of a stopped playground reply', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("is looked up in the user's log by the request id, again until the row is written", async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(page([logRow('another')]))
      .mockResolvedValueOnce(page([logRow('another'), logRow(REQUEST_ID)]));
    vi.stubGlobal('fetch', fetchMock);
    const billed = await stoppedReplyCost({ requestId: REQUEST_ID }, () => Promise.resolve());
    expect(billed).toEqual({ promptTokens: 9, completionTokens: 3, quota: 1234 });
    expect(fetchMock.mock.calls[0]?.[0]).toMatch(
      /^\/api\/log\/self\?p=0&size=10&type=2&request_id=req-stopped-1$/,
    );
    vi.stubGlobal('fetch', vi.fn<typeof fetch>().mockResolvedValue(page([])));
    expect(await stoppedReplyCost({ requestId: REQUEST_ID }, () => Promise.resolve())).toBe(undefined);
  });

  it('shows the billed cost on a reply the user stopped mid-stream', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>((_input, init) => Promise.resolve(openStream(init?.signal))),
    );
    let shown = conversation;
    const billedCost = vi.fn<typeof stoppedReplyCost>().mockResolvedValue({
      promptTokens: 9,
      completionTokens: 3,
      quota: 1234,
    });
    const { result } = renderHook(() =>
      usePlaygroundChat(shown, (next) => (shown = next), {
        key: 'k',
        priceOf: () => undefined,
        save: () => undefined,
        billedCost,
      }),
    );
    let sent: Promise<void> | undefined;
    act(() => {
      sent = result.current.send('Hello', []);
    });
    await vi.waitFor(() => expect(shown.turns.at(-1)?.text).toBe('Hel'));
    await act(async () => {
      result.current.stop();
      await sent;
    });
    expect(billedCost).toHaveBeenCalledWith({ requestId: REQUEST_ID });
    const reply = shown.turns.at(-1);
    expect(reply).toMatchObject({
      stopped: true,
      text: 'Hel',
      stats: { promptTokens: 9, completionTokens: 3, quota: 1234 },
    });

    const view = render(
      <Providers queryClient={createQueryClient(() => undefined)}>
        <ReplyStats
          stats={
            reply?.stats ?? { promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
          }
        />
      </Providers>,
    );
    expect(view.getByTestId('playground-stats').getAttribute('data-quota')).toBe('1234');
    expect(view.getByTestId('playground-stats').textContent).toContain('9');
  });
});
