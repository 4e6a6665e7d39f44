// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { tokenLink } from './token-links.js';

const context = { serverAddress: 'https://api.example.com', chatLink: '' };

describe('token copy targets (one-api TokensTable)', () => {
  it('copies the key with the sk- prefix', () => {
    expect(tokenLink('key', 'abc123', context)).toBe('sk-abc123');
  });

  it('builds the Next Web link on the chat link or the public app', () => {
    expect(tokenLink('next', 'abc', context)).toBe(
      'https://app.nextchat.dev/#/?settings={"key":"sk-abc","url":"https://api.example.com"}',
    );
    expect(tokenLink('next', 'abc', { ...context, chatLink: 'https://chat.example.com/' })).toBe(
      'https://chat.example.com/#/?settings={"key":"sk-abc","url":"https://api.example.com"}',
    );
  });

  it('builds the BotGem and OpenCat deep links with the encoded server address', () => {
    expect(tokenLink('ama', 'abc', context)).toBe(
      'ama://set-api-key?server=https%3A%2F%2Fapi.example.com&key=sk-abc',
    );
    expect(tokenLink('opencat', 'abc', context)).toBe(
      'opencat://team/join?domain=https%3A%2F%2Fapi.example.com&token=sk-abc',
    );
  });

  it('builds the LobeChat link with the /v1 base URL', () => {
    expect(tokenLink('lobechat', 'abc', { ...context, chatLink: 'https://lobe.example.com' })).toBe(
      'https://lobe.example.com/?settings={"keyVaults":{"openai":{"apiKey":"sk-abc","baseURL":"https://api.example.com/v1"}}}',
    );
    expect(tokenLink('lobechat', 'abc', context)).toMatch(
      /^https:\/\/chat-preview\.lobehub\.com\/\?settings=/,
    );
  });
});
