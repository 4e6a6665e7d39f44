import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

/**
 * Verifies a TC3-HMAC-SHA256 request the way Tencent Cloud does, written apart from the adaptor's
 * signer: the headers the Authorization lists as signed (names and values lower-cased, values
 * trimmed), the path, the empty query, the payload's SHA-256, the credential's date and service.
 * Returns what is wrong, or undefined when the signature holds.
 */
export const verifyTc3 = (
  request: { readonly method: string; readonly path: string; readonly headers: IncomingHttpHeaders },
  payload: Buffer,
  secrets: { readonly secretId: string; readonly secretKey: string; readonly service: string },
): string | undefined => {
  const header = String(request.headers['authorization'] ?? '');
  const match =
    /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      header,
    );
  if (!match) return 'malformed Authorization';
  const [, secretId, date, service, signedHeaders = '', signature = ''] = match;
  if (secretId !== secrets.secretId) return 'unknown SecretId';
  if (service !== secrets.service) return 'wrong service';
  const timestamp = Number(request.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(timestamp - Date.now() / 1000) > 300) return 'stale timestamp';
  if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) return 'date is not the timestamp’s';
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('content-type'))
    return 'host and content-type must be signed';
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .toLowerCase()}\n`,
    )
    .join('');
  const hash = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
  const [path = '/', query = ''] = request.path.split('?');
  const canonical = [request.method, path, query, canonicalHeaders, signedHeaders, hash(payload)].join('\n');
  const scope = `${date}/${service}/tc3_request`;
  const toSign = ['TC3-HMAC-SHA256', String(timestamp), scope, hash(canonical)].join('\n');
  let key: Buffer = createHmac('sha256', `TC3${secrets.secretKey}`)
    .update(date ?? '')
    .digest();
  for (const part of [service ?? '', 'tc3_request']) key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(toSign).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? undefined : 'signature mismatch';
};

export interface TencentDouble extends Listening {
  readonly requests: RecordedRequest[];
  readonly appId: string;
  readonly secretId: string;
  readonly secretKey: string;
  /** The channel key, AppId|SecretId|SecretKey. */
  readonly key: string;
  /** Answer the next request with Tencent's error (HTTP 200, `Response.Error`). */
  failNext(code: string, message: string): void;
  reply: string;
  usage: { PromptTokens: number; CompletionTokens: number };
  readonly vector: readonly number[];
}

const sleep = () => new Promise((resolve) => setImmediate(resolve));
const NOTE = '以上内容为AI生成，不代表开发者立场，请勿删除或修改本标记';

/**
 * A loopback double of Tencent Hunyuan's API 2023-09-01: `POST /` checked as Tencent does (TC3
 * signature, version), `ChatCompletions` (JSON under `Response`, or SSE `data:` events of
 * `Choices[].Delta` with the running Usage, written in small pieces) and `GetEmbedding`; errors as
 * `{Response:{Error:{Code, Message}, RequestId}}` with HTTP 200.
 */
export const startTencentDouble = async (): Promise<TencentDouble> => {
  const appId = '1300000001';
  const secretId = 'AKIDdoubleSecretId000000000000000001';
  const secretKey = 'doubleSecretKey0000000000000000a';
  const requests: RecordedRequest[] = [];
  const failures: { code: string; message: string }[] = [];
  const vector = [0.5, -0.25, 0.125];
  const state = {
    reply: '您好！我是腾讯混元大模型，很高兴为您服务。',
    usage: { PromptTokens: 9, CompletionTokens: 14 },
  };
  let requestCount = 0;

  const json = (response: ServerResponse, body: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ Response: { ...(body as object), RequestId: `req-${requestCount}` } }));
  };
  const error = (response: ServerResponse, code: string, message: string) =>
    json(response, { Error: { Code: code, Message: message } });

  const usage = () => ({
    ...state.usage,
    TotalTokens: state.usage.PromptTokens + state.usage.CompletionTokens,
  });

  const stream = async (response: ServerResponse, id: string) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'x-tc-requestid': id });
    const pieces = [...state.reply].reduce<string[]>((out, char, at) => {
      if (at % 4 === 0) out.push(char);
      else out[out.length - 1] += char;
      return out;
    }, []);
    const text = pieces
      .map((piece, at) => {
        const last = at === pieces.length - 1;
        const completion = last ? state.usage.CompletionTokens : at + 1;
        const event = {
          Note: NOTE,
          Choices: [{ Delta: { Role: 'assistant', Content: piece }, FinishReason: last ? 'stop' : '' }],
          Created: 1715162439,
          Id: id,
          Usage: {
            PromptTokens: state.usage.PromptTokens,
            CompletionTokens: completion,
            TotalTokens: state.usage.PromptTokens + completion,
          },
        };
        return `data: ${JSON.stringify(event)}\n\n`;
      })
      .join('');
    const bytes = Buffer.from(text);
    for (let start = 0; start < bytes.length; start += 37) {
      if (response.destroyed) return;
      response.write(bytes.subarray(start, start + 37));
      await sleep();
    }
    response.end();
  };

  const server = await listenHandler(async (request, body, response) => {
    requestCount += 1;
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const recorded = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
    };
    requests.push({ ...recorded, json: parsed });
    const wrong = verifyTc3(recorded, body, { secretId, secretKey, service: 'hunyuan' });
    if (wrong)
      return error(
        response,
        'AuthFailure.SignatureFailure',
        `The provided credentials could not be validated (${wrong}).`,
      );
    if (request.headers['x-tc-version'] !== '2023-09-01')
      return error(response, 'InvalidParameterValue', 'The API version is not supported.');
    const failure = failures.shift();
    if (failure) return error(response, failure.code, failure.message);
    const action = request.headers['x-tc-action'];
    if (action === 'GetEmbedding')
      return json(response, {
        Data: [{ Embedding: vector, Index: 0, Object: 'embedding' }],
        Usage: { PromptTokens: state.usage.PromptTokens, TotalTokens: state.usage.PromptTokens },
      });
    if (action !== 'ChatCompletions')
      return error(response, 'InvalidAction', `unknown action ${String(action)}`);
    const id = `hunyuan-${requestCount}`;
    const tools = Array.isArray(parsed?.['Tools'])
      ? (parsed['Tools'] as { Function: { Name: string } }[])
      : [];
    const messages = Array.isArray(parsed?.['Messages']) ? (parsed['Messages'] as { Role: string }[]) : [];
    if (parsed?.['Stream'] === true) return stream(response, id);
    const call = tools[0] && messages.at(-1)?.Role !== 'tool' ? tools[0].Function.Name : undefined;
    json(response, {
      Note: NOTE,
      Choices: [
        {
          Message: call
            ? {
                Role: 'assistant',
                Content: '',
                ToolCalls: [
                  {
                    Id: 'call_hy_1',
                    Type: 'function',
                    Function: { Name: call, Arguments: '{"location":"Paris"}' },
                  },
                ],
              }
            : { Role: 'assistant', Content: state.reply },
          FinishReason: call ? 'tool_calls' : 'stop',
        },
      ],
      Created: 1715162426,
      Id: id,
      Usage: usage(),
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    appId,
    secretId,
    secretKey,
    key: `${appId}|${secretId}|${secretKey}`,
    vector,
    failNext: (code, message) => {
      failures.push({ code, message });
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
  };
};
