import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import { aiProxyLibraryAdaptor } from './aiproxy-adaptor.js';

const meta = fixtureMeta(
  {
    type: CHANNEL_TYPE.aiProxyLibrary,
    baseUrl: 'https://api.aiproxy.io',
    key: 'ap-key',
    config: { library_id: 'lib-42' },
  },
  { model: 'gpt-3.5-turbo' },
);

describe('aiproxy library adaptor', () => {
  it('pins one-api’s request: /api/library/ask, Bearer, query and libraryId', () => {
    const request = aiProxyLibraryAdaptor.buildRequest(
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'What is Sluice?' },
        ],
      },
      meta,
    );
    expect(request.url).toBe('https://api.aiproxy.io/api/library/ask');
    expect(request.headers).toEqual({ authorization: 'Bearer ap-key', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'gpt-3.5-turbo',
      query: 'What is Sluice?',
      libraryId: 'lib-42',
      stream: false,
    });
  });

  it('answers the answer and its documents as Markdown, without usage', () => {
    const parsed = aiProxyLibraryAdaptor.parseResponse(
      { success: true, answer: 'A gateway.', documents: [{ title: 'Doc', url: 'https://d' }] },
      meta,
    );
    expect(parsed.body).toMatchObject({
      choices: [{ message: { content: 'A gateway.\n\n参考文档：\n1. [Doc](https://d)\n' } }],
    });
    expect(parsed.usage).toBeUndefined();
    expect(() =>
      aiProxyLibraryAdaptor.parseResponse({ success: false, errCode: 1, message: 'no library' }, meta),
    ).toThrow('no library');
  });
});
