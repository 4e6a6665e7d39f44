import { describe, expect, it } from 'vitest';
import { geminiToHub, readGeminiCountRequest } from './gemini-to-hub.js';

/** Requests as Google's REST docs and cookbook write them (snake_case, single objects for lists). */
const route = { model: 'gemini-2.5-flash' };

const theaters = {
  name: 'find_theaters',
  description:
    'find theaters based on location and optionally movie title which is currently playing in theaters',
  parameters: {
    type: 'OBJECT',
    properties: {
      location: {
        type: 'STRING',
        description: 'The city and state, e.g. San Francisco, CA or a zip code e.g. 95616',
      },
      movie: { type: 'STRING', description: 'Any movie title' },
    },
    required: ['location'],
  },
};

describe('geminiToHub: Google’s documented requests', () => {
  it('reads a text prompt (contents with one user part), the model from the route', () => {
    const body = { contents: [{ parts: [{ text: 'Explain how AI works in a few words' }] }] };
    expect(geminiToHub(body, route)).toEqual({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Explain how AI works in a few words' }],
    });
  });

  it('reads a multi-turn chat with a snake_case system_instruction and single-object parts', () => {
    const body = {
      system_instruction: { parts: { text: 'You are Neko the cat respond like one' } },
      contents: [
        { role: 'user', parts: [{ text: 'Hello cat.' }] },
        { role: 'model', parts: [{ text: 'Meow? 😻 \n' }] },
        { role: 'user', parts: [{ text: 'What is your name? What do like to drink?' }] },
      ],
    };
    expect(geminiToHub(body, route)['messages']).toEqual([
      { role: 'system', content: 'You are Neko the cat respond like one' },
      { role: 'user', content: 'Hello cat.' },
      { role: 'assistant', content: 'Meow? 😻 \n' },
      { role: 'user', content: 'What is your name? What do like to drink?' },
    ]);
    expect(geminiToHub({ contents: { parts: { text: 'Hello there' } } }, route)['messages']).toEqual([
      { role: 'user', content: 'Hello there' },
    ]);
  });

  it('reads a function calling round trip (role function, OpenAPI types) with deterministic call ids', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Which theaters in Mountain View show Barbie movie?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: {
                name: 'find_theaters',
                args: { location: 'Mountain View, CA', movie: 'Barbie' },
              },
            },
          ],
        },
        {
          role: 'function',
          parts: [
            {
              functionResponse: {
                name: 'find_theaters',
                response: {
                  name: 'find_theaters',
                  content: { movie: 'Barbie', theaters: [{ name: 'AMC Mountain View 16' }] },
                },
              },
            },
          ],
        },
      ],
      tools: [{ function_declarations: [theaters] }],
    };
    const hub = geminiToHub(body, route);
    expect(hub['messages']).toEqual([
      { role: 'user', content: 'Which theaters in Mountain View show Barbie movie?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_0',
            type: 'function',
            function: {
              name: 'find_theaters',
              arguments: '{"location":"Mountain View, CA","movie":"Barbie"}',
            },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_0',
        content:
          '{"name":"find_theaters","content":{"movie":"Barbie","theaters":[{"name":"AMC Mountain View 16"}]}}',
      },
    ]);
    expect(hub['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'find_theaters',
          description: theaters.description,
          parameters: {
            type: 'object',
            properties: {
              location: { type: 'string', description: theaters.parameters.properties.location.description },
              movie: { type: 'string', description: 'Any movie title' },
            },
            required: ['location'],
          },
        },
      },
    ]);
  });

  it('reads an inline image (inline_data) as an image_url data URL', () => {
    const body = {
      contents: [
        {
          parts: [
            { inline_data: { mime_type: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
            { text: 'Caption this image.' },
          ],
        },
      ],
    };
    expect(geminiToHub(body, route)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
          { type: 'text', text: 'Caption this image.' },
        ],
      },
    ]);
  });

  it('reads JSON mode with a responseSchema as a json_schema response_format', () => {
    const body = {
      contents: [
        {
          role: 'user',
          parts: [{ text: 'List a few popular cookie recipes, and include the amounts of ingredients.' }],
        },
      ],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: {
          type: 'ARRAY',
          items: {
            type: 'OBJECT',
            properties: {
              recipeName: { type: 'STRING' },
              ingredients: { type: 'ARRAY', items: { type: 'STRING' } },
            },
            propertyOrdering: ['recipeName', 'ingredients'],
          },
        },
      },
    };
    expect(geminiToHub(body, route)['response_format']).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              recipeName: { type: 'string' },
              ingredients: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    });
    const plain = { contents: 'List cookies', generationConfig: { response_mime_type: 'application/json' } };
    expect(geminiToHub(plain, route)['response_format']).toEqual({ type: 'json_object' });
    const given = {
      type: 'object',
      properties: { a: { type: ['string', 'null'] } },
      additionalProperties: false,
    };
    const json = {
      contents: 'x',
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: given },
    };
    expect(geminiToHub(json, route)['response_format']).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: given },
    });
  });
});

describe('readGeminiCountRequest', () => {
  it('reads contents, or a whole generateContentRequest, as a hub body to count', () => {
    expect(
      readGeminiCountRequest(
        { contents: [{ role: 'user', parts: [{ text: 'The quick brown fox' }] }] },
        'gemini-2.0-flash',
      ),
    ).toEqual({
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: 'The quick brown fox' }],
    });
    const whole = {
      generateContentRequest: {
        model: 'models/gemini-2.0-flash',
        contents: [{ parts: [{ text: 'Hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
      },
    };
    expect(readGeminiCountRequest(whole, undefined)).toEqual({
      model: 'gemini-2.0-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    });
  });

  it('refuses a body with neither, naming the field', () => {
    expect(() => readGeminiCountRequest({}, 'm')).toThrow(/contents/);
    expect(() =>
      readGeminiCountRequest({ generateContentRequest: { contents: [{ parts: [{ text: 1 }] }] } }, 'm'),
    ).toThrow(/generateContentRequest\.contents\.0\.parts\.0\.text/);
  });
});
