import { describe, expect, it } from 'vitest';
import { geminiToHub } from './gemini-to-hub.js';

const route = { model: 'gemini-2.5-flash' };

describe('geminiToHub: what Gemini CLI sends', () => {
  it('pairs its function responses (ids of its own) with id-less calls, and keeps media after the results', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Read a.png and b.txt' }] },
        {
          role: 'model',
          parts: [
            { text: 'Reading both.', thought: true },
            { functionCall: { name: 'read_file', args: { path: 'a.png' } }, thoughtSignature: 'c2ln' },
            { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'read_file-1700000000000-abc',
                name: 'read_file',
                response: { output: 'Binary content provided (1 item(s)).' },
                parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
              },
            },
            {
              functionResponse: {
                id: 'read_file-1700000000001-def',
                name: 'read_file',
                response: { output: 'hello' },
              },
            },
          ],
        },
      ],
      systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'read_file',
              description: 'Reads a file.',
              parametersJsonSchema: {
                type: 'object',
                properties: { path: { type: 'string' } },
                required: ['path'],
              },
            },
          ],
        },
      ],
      generationConfig: {
        temperature: 1,
        topP: 0.95,
        topK: 64,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
      },
    };
    const hub = geminiToHub(body, { model: 'gemini-2.5-pro', stream: true });
    expect(hub['messages']).toEqual([
      { role: 'system', content: 'You are an interactive CLI agent.' },
      { role: 'user', content: 'Read a.png and b.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.png"}' } },
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0', content: '{"output":"Binary content provided (1 item(s))."}' },
      { role: 'tool', tool_call_id: 'call_1', content: '{"output":"hello"}' },
      {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
      },
    ]);
    expect(hub['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Reads a file.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
    ]);
    expect(hub['reasoning_effort']).toBe('medium');
  });

  it('keeps the ids of calls that carry one, and pairs responses by id before name', () => {
    const body = {
      contents: [
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'call_a', name: 'f', args: {} } },
            { functionCall: { id: 'call_b', name: 'f', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_b', name: 'f', response: { r: 2 } } },
            { functionResponse: { id: 'call_a', name: 'f', response: { r: 1 } } },
          ],
        },
      ],
    };
    const messages = geminiToHub(body, route)['messages'] as Record<string, unknown>[];
    expect(messages.slice(1).map((message) => message['tool_call_id'])).toEqual(['call_b', 'call_a']);
  });

  it('reads a PDF as a file part and a text file as text', () => {
    const body = {
      contents: [
        {
          parts: [
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
            { inlineData: { mimeType: 'text/plain', data: Buffer.from('notes').toString('base64') } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png' } },
          ],
        },
      ],
    };
    expect(geminiToHub(body, route)['messages']).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'file',
            file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
          },
          { type: 'text', text: 'notes' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });
});
