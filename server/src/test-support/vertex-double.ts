import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { startAnthropicDouble, type AnthropicDouble } from './anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from './gemini-double.js';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

/** A throwaway service account: the JSON a channel stores, and the public key that checks its grants. */
export interface ThrowawayServiceAccount {
  /** The key file's JSON text (`config.vertex_ai_adc`). */
  readonly json: string;
  readonly clientEmail: string;
  readonly privateKeyId: string;
  readonly publicKey: KeyObject;
}

/** Generates an RSA key pair for the test run (never a real key) and the key file naming `tokenUri`. */
export const throwawayServiceAccount = (
  tokenUri: string,
  projectId = 'sluice-vertex-test',
): ThrowawayServiceAccount => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyId = randomBytes(20).toString('hex');
  const clientEmail = `relay@${projectId}.iam.gserviceaccount.com`;
  const json = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: privateKeyId,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
  });
  return { json, clientEmail, privateKeyId, publicKey };
};

/** A JWT grant the double accepted: its header and claims. */
export interface Grant {
  readonly kid: string | undefined;
  readonly claims: Record<string, unknown>;
}

export interface VertexDouble extends Listening {
  /** The Vertex AI calls (token requests apart), each `path` with its query. */
  readonly requests: RecordedRequest[];
  /** The accepted JWT grants, one per token issued. */
  readonly grants: Grant[];
  /** The service account whose grants the double accepts (its token_uri is the double's). */
  readonly account: ThrowawayServiceAccount;
  readonly project: string;
  readonly region: string;
  /** The `expires_in` of the tokens issued next (seconds). */
  expiresIn: number;
  /** Answer the next Vertex call with this status and Google error body. */
  failNext(status: number, grpcStatus: string, message: string): void;
  /** The answerers of the Gemini and Claude models (their reply and usage may be set). */
  readonly gemini: GeminiDouble;
  readonly anthropic: AnthropicDouble;
}

const google = (response: ServerResponse, status: number, grpcStatus: string, message: string) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify({ error: { code: status, message, status: grpcStatus } }));
};

const CALL =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/;

/**
 * A loopback double of Vertex AI: Google's OAuth token endpoint (the service account's `token_uri`:
 * a JWT grant checked with the account's public key, RS256, its issuer, audience and scope), and
 * Vertex's `publishers/google` (generateContent, streamGenerateContent?alt=sse) and
 * `publishers/anthropic` (rawPredict, streamRawPredict) models, which take only a Bearer token it
 * issued and not expired. The models' answers are the Gemini and Anthropic doubles' own wire format.
 */
export const startVertexDouble = async (
  region = 'us-east5',
  project = 'sluice-vertex-test',
): Promise<VertexDouble> => {
  const [gemini, anthropic] = await Promise.all([startGeminiDouble(), startAnthropicDouble()]);
  const requests: RecordedRequest[] = [];
  const grants: Grant[] = [];
  const failures: { status: number; grpcStatus: string; message: string }[] = [];
  const issued = new Map<string, number>();
  const state = { expiresIn: 3599 };

  const issue = async (body: Buffer, response: ServerResponse) => {
    const form = new URLSearchParams(body.toString('utf8'));
    const refuse = (description: string) => {
      response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: 'invalid_grant', error_description: description }));
    };
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return refuse('Invalid grant_type');
    const assertion = form.get('assertion') ?? '';
    try {
      const { payload } = await jwtVerify(assertion, account.publicKey, {
        algorithms: ['RS256'],
        issuer: account.clientEmail,
        audience: tokenUri,
        maxTokenAge: 3600,
      });
      if (payload['scope'] !== 'https://www.googleapis.com/auth/cloud-platform')
        return refuse('Invalid scope');
      if (
        typeof payload.exp !== 'number' ||
        typeof payload.iat !== 'number' ||
        payload.exp - payload.iat > 3600
      )
        return refuse('Invalid JWT: Token must be a short-lived token (60 minutes)');
      const { kid } = decodeProtectedHeader(assertion);
      if (kid !== account.privateKeyId) return refuse('Invalid JWT Signature.');
      grants.push({ kid, claims: payload });
    } catch {
      return refuse('Invalid JWT Signature.');
    }
    const token = `ya29.double-${grants.length}-${randomBytes(12).toString('base64url')}`;
    issued.set(token, Date.now() + state.expiresIn * 1000);
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ access_token: token, expires_in: state.expiresIn, token_type: 'Bearer' }));
  };

  /** Passes the call on to the model's answerer and its answer back as it comes. */
  const relay = async (
    response: ServerResponse,
    url: string,
    headers: Record<string, string>,
    body: string,
  ) => {
    const answer = await fetch(url, { method: 'POST', headers, body });
    response.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    for await (const chunk of answer.body ?? []) {
      if (response.destroyed) return;
      response.write(chunk);
    }
    response.end();
  };

  const call = async (
    request: IncomingMessage,
    path: string,
    query: string,
    json: Record<string, unknown> | undefined,
    response: ServerResponse,
  ) => {
    const match = CALL.exec(path);
    if (!match)
      return google(response, 404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
    const [, projectOf, location, publisher, model = '', action] = match;
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const expiresAt = issued.get(bearer);
    if (expiresAt === undefined || expiresAt <= Date.now())
      return google(
        response,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    if (projectOf !== project || location !== region)
      return google(
        response,
        403,
        'PERMISSION_DENIED',
        `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${projectOf}/locations/${location}'.`,
      );
    const failure = failures.shift();
    if (failure) return google(response, failure.status, failure.grpcStatus, failure.message);
    if (!json) return google(response, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    if (publisher === 'google') {
      const contents = Array.isArray(json['contents']) ? (json['contents'] as { role?: unknown }[]) : [];
      if (contents.some((content) => content.role !== 'user' && content.role !== 'model'))
        return google(response, 400, 'INVALID_ARGUMENT', 'Please use a valid role: user, model.');
      const stream = action === 'streamGenerateContent';
      if (!stream && action !== 'generateContent')
        return google(response, 400, 'INVALID_ARGUMENT', `unknown action ${action}`);
      if (stream && query !== 'alt=sse')
        return google(response, 400, 'INVALID_ARGUMENT', 'streams are asked with alt=sse here');
      return relay(
        response,
        `${gemini.url}/v1beta/models/${model}:${action}${stream ? '?alt=sse' : ''}`,
        { 'x-goog-api-key': gemini.key, 'content-type': 'application/json' },
        JSON.stringify(json),
      );
    }
    const stream = action === 'streamRawPredict';
    if (!stream && action !== 'rawPredict')
      return google(response, 400, 'INVALID_ARGUMENT', `unknown action ${action}`);
    const { anthropic_version: version, ...rest } = json;
    if (typeof version !== 'string' || !version.startsWith('vertex-'))
      return google(
        response,
        400,
        'INVALID_ARGUMENT',
        'anthropic_version: Input should be a valid string starting with vertex-',
      );
    if ('model' in rest)
      return google(response, 400, 'INVALID_ARGUMENT', 'model: Extra inputs are not permitted');
    if ((rest['stream'] === true) !== stream)
      return google(response, 400, 'INVALID_ARGUMENT', `stream must be ${String(stream)} for ${action}`);
    return relay(
      response,
      `${anthropic.url}/v1/messages`,
      { 'x-api-key': anthropic.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      JSON.stringify({ model: decodeURIComponent(model), ...rest }),
    );
  };

  const server = await listenHandler(async (request, body, response) => {
    const [path = '', query = ''] = (request.url ?? '').split('?');
    if (request.method === 'POST' && path === '/token') return issue(body, response);
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
      json,
    });
    return call(request, path, query, json, response);
  });
  const tokenUri = `${server.url}/token`;
  // Made once the URL is known: no request can come before (no one knew where to send it).
  const account = throwawayServiceAccount(tokenUri, project);

  return {
    url: server.url,
    close: async () => {
      await server.close();
      await Promise.all([gemini.close(), anthropic.close()]);
    },
    requests,
    grants,
    account,
    project,
    region,
    gemini,
    anthropic,
    failNext: (status, grpcStatus, message) => {
      failures.push({ status, grpcStatus, message });
    },
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(value) {
      state.expiresIn = value;
    },
  };
};
