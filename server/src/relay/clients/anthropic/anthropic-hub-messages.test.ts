import { describe, expect, it } from 'vitest';
import { anthropicClient } from './anthropic-client.js';

const toHub = (body: Record<string, unknown>) => anthropicClient.toHub(body, {});

const PDF = 'JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBS';

describe('anthropic client: messages → hub messages', () => {
  it('reads system (a string or text blocks, cache_control ignored) and system-role messages', () => {
    const hub = toHub({
      model: 'claude',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be terse.' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] },
        { role: 'system', content: 'Now answer in French.' },
      ],
    });
    expect(hub['messages']).toEqual([
      { role: 'system', content: 'You are Claude Code.\nBe terse.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Now answer in French.' },
    ]);
    expect(
      toHub({ model: 'm', max_tokens: 1, system: 'Terse.', messages: [{ role: 'user', content: 'x' }] })[
        'messages'
      ],
    ).toEqual([
      { role: 'system', content: 'Terse.' },
      { role: 'user', content: 'x' },
    ]);
  });

  it('puts a turn’s tool messages first, the images of tool results and the user’s other blocks after', () => {
    const hub = toHub({
      model: 'claude',
      max_tokens: 10,
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two tools.', signature: 'EqQBCgIYAhIM' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
            { type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} },
            { type: 'tool_use', id: 'toolu_2', name: 'read', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'The screen:' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              ],
            },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [{ type: 'text', text: 'hello' }],
              is_error: false,
            },
            { type: 'text', text: 'What do you see?' },
          ],
        },
      ],
    });
    expect(hub['messages']).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'The screen:\n[image]' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          { type: 'text', text: 'What do you see?' },
        ],
      },
    ]);
  });

  it('drops an assistant turn that held only thinking, and empty text blocks', () => {
    const hub = toHub({
      model: 'claude',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'Hi' },
          ],
        },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }] },
        { role: 'user', content: 'Hello?' },
      ],
    });
    expect(hub['messages']).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'user', content: 'Hello?' },
    ]);
  });

  it('reads documents: a base64 PDF as a file part, plain text as text', () => {
    const hub = toHub({
      model: 'claude',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              title: 'report.pdf',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF },
              cache_control: { type: 'ephemeral' },
            },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' },
            },
            { type: 'text', text: 'Summarise.' },
          ],
        },
      ],
    });
    expect(hub['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
          {
            type: 'file',
            file: { filename: 'document.pdf', file_data: `data:application/pdf;base64,${PDF}` },
          },
          { type: 'text', text: 'The grass is green.' },
          { type: 'text', text: 'Summarise.' },
        ],
      },
    ]);
  });
});
