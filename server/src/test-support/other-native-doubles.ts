import { listenHandler, type Listening } from './listen.js';

/**
 * One loopback double for Cohere (v2 chat, its SSE stream, tools, v2 embed) and DeepL (/v2/translate),
 * each checking its key the way the provider does (Bearer; DeepL-Auth-Key) and answering its errors.
 */
export interface OtherNativeDouble extends Listening {
  readonly cohereKey: string;
  readonly deeplKey: string;
  readonly paths: string[];
}

const sse = (events: [string, unknown][]): string =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

export const startOtherNativeDouble = async (): Promise<OtherNativeDouble> => {
  const cohereKey = 'co-double-key-0001';
  const deeplKey = 'deepl-double-key:fx';
  const paths: string[] = [];
  const server = await listenHandler((request, body, response) => {
    const path = request.url ?? '';
    paths.push(path);
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    const parsed = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    if (path === '/v3/chat') {
      if (request.headers['authorization'] !== `Bearer ${cohereKey}`)
        return json(200, { code: 4100, msg: 'authentication is invalid' });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        [
          'event:conversation.chat.created\ndata:{"id":"chat1","status":"created"}\n\n',
          'event:conversation.message.delta\ndata:{"role":"assistant","type":"answer","content":"Bot says hi"}\n\n',
          'event:conversation.chat.completed\ndata:{"id":"chat1","usage":{"token_count":9,"output_count":4,"input_count":5}}\n\n',
          'event:done\ndata:"[DONE]"\n\n',
        ].join(''),
      );
      return;
    }
    if (path === '/v1beta2/models/chat-bison-001:generateMessage') {
      if (request.headers['x-goog-api-key'] !== cohereKey)
        return json(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } });
      return json(200, { candidates: [{ author: '1', content: 'PaLM says hi' }] });
    }
    if (path === '/api/library/ask') {
      if (request.headers['authorization'] !== `Bearer ${cohereKey}`)
        return json(401, { success: false, errCode: 401, message: 'bad key' });
      if (parsed['stream'] === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          'data: {"content":"Library says hi","finish":false}\n\n' +
            'data: {"content":"","finish":true,"documents":[{"title":"Doc","url":"https://d"}]}\n\n',
        );
        return;
      }
      return json(200, {
        success: true,
        answer: 'Library says hi',
        documents: [{ title: 'Doc', url: 'https://d' }],
      });
    }
    if (path === '/v2/translate') {
      if (request.headers['authorization'] !== `DeepL-Auth-Key ${deeplKey}`)
        return json(403, { message: 'Wrong key' });
      return json(200, { translations: [{ detected_source_language: 'EN', text: 'Hallo, Welt!' }] });
    }
    if (request.headers['authorization'] !== `Bearer ${cohereKey}`)
      return json(401, { message: 'invalid api token' });
    if (path === '/v2/embed')
      return json(200, { embeddings: { float: [[0.1, 0.2]] }, meta: { billed_units: { input_tokens: 3 } } });
    if (path !== '/v2/chat') return json(404, { message: 'not found' });
    if (parsed['model'] === 'command-fail') return json(429, { message: 'too many tokens this minute' });
    const tools = Array.isArray(parsed['tools']) && parsed['tools'].length > 0;
    const usage = { billed_units: { input_tokens: 11, output_tokens: 7 } };
    if (parsed['stream'] === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        sse([
          ['message-start', { id: 'm1', type: 'message-start', delta: { message: { role: 'assistant' } } }],
          [
            'content-delta',
            { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hello ' } } } },
          ],
          [
            'content-delta',
            { type: 'content-delta', index: 0, delta: { message: { content: { text: 'there!' } } } },
          ],
          ['message-end', { type: 'message-end', delta: { finish_reason: 'COMPLETE', usage } }],
        ]),
      );
      return;
    }
    return json(200, {
      id: 'c1',
      finish_reason: tools ? 'TOOL_CALL' : 'COMPLETE',
      message: tools
        ? {
            role: 'assistant',
            tool_calls: [
              {
                id: 't1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
              },
            ],
          }
        : { role: 'assistant', content: [{ type: 'text', text: 'Hello there!' }] },
      usage,
    });
  });
  return { url: server.url, close: () => server.close(), cohereKey, deeplKey, paths };
};
