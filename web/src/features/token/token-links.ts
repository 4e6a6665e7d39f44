/**
 * The copy targets of a token (spec §2), built as one-api's console builds them
 * (web/default/src/components/TokensTable.js, onCopy / onOpenLink):
 * - key:      `sk-<key>`
 * - next:     `<chat link or https://app.nextchat.dev>/#/?settings={"key":"sk-<key>","url":"<server>"}`
 * - ama:      `ama://set-api-key?server=<server, URI-encoded>&key=sk-<key>` (BotGem)
 * - opencat:  `opencat://team/join?domain=<server, URI-encoded>&token=sk-<key>`
 * - lobechat: `<chat link>/?settings={"keyVaults":{"openai":{"apiKey":"sk-<key>","baseURL":"<server>/v1"}}}`
 * `<server>` is the configured server address, else this page's origin. one-api leaves the LobeChat
 * link without a host when no chat link is set; Sluice falls back to LobeChat's public app.
 */
export type TokenLinkKind = 'key' | 'next' | 'ama' | 'opencat' | 'lobechat';

export const CHAT_CLIENTS: readonly { kind: Exclude<TokenLinkKind, 'key'>; label: string }[] = [
  { kind: 'next', label: 'ChatGPT Next Web' },
  { kind: 'ama', label: 'BotGem' },
  { kind: 'opencat', label: 'OpenCat' },
  { kind: 'lobechat', label: 'LobeChat' },
];

export const DEFAULT_NEXT_WEB = 'https://app.nextchat.dev';
export const DEFAULT_LOBECHAT = 'https://chat-preview.lobehub.com';

export interface LinkContext {
  /** The server address without a trailing slash. */
  readonly serverAddress: string;
  /** The configured chat link ('' when none). */
  readonly chatLink: string;
}

const trimSlash = (value: string) => value.replace(/\/+$/, '');

export const tokenLink = (kind: TokenLinkKind, key: string, context: LinkContext): string => {
  const secret = `sk-${key}`;
  const server = context.serverAddress;
  const encoded = encodeURIComponent(server);
  switch (kind) {
    case 'key':
      return secret;
    case 'next':
      return `${trimSlash(context.chatLink || DEFAULT_NEXT_WEB)}/#/?settings={"key":"${secret}","url":"${server}"}`;
    case 'ama':
      return `ama://set-api-key?server=${encoded}&key=${secret}`;
    case 'opencat':
      return `opencat://team/join?domain=${encoded}&token=${secret}`;
    case 'lobechat':
      return `${trimSlash(context.chatLink || DEFAULT_LOBECHAT)}/?settings={"keyVaults":{"openai":{"apiKey":"${secret}","baseURL":"${server}/v1"}}}`;
  }
};
