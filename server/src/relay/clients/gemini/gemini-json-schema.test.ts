import { describe, expect, it } from 'vitest';
import { geminiJsonSchema, parametersJsonSchema } from './gemini-json-schema.js';

describe('geminiJsonSchema', () => {
  it('lower-cases types, spells nullable as a null type and int64 counts as numbers', () => {
    expect(
      geminiJsonSchema({
        type: 'OBJECT',
        nullable: true,
        properties: {
          tags: {
            type: 'ARRAY',
            items: { type: 'STRING', format: 'enum', enum: ['a', 'b'] },
            min_items: '1',
            maxItems: '3',
          },
          when: { type: 'STRING', format: 'date-time' },
          either: { anyOf: [{ type: 'INTEGER' }, { type: 'NUMBER' }], nullable: true },
          type: { type: 'BOOLEAN', description: 'a property named type' },
        },
        required: ['tags'],
        propertyOrdering: ['tags', 'when'],
        example: { tags: ['a'] },
      }),
    ).toEqual({
      type: ['object', 'null'],
      properties: {
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 3 },
        when: { type: 'string', format: 'date-time' },
        either: { anyOf: [{ type: 'integer' }, { type: 'number' }, { type: 'null' }] },
        type: { type: 'boolean', description: 'a property named type' },
      },
      required: ['tags'],
    });
  });

  it('gives an object without properties empty ones, and takes JSON Schema as it is', () => {
    expect(parametersJsonSchema({ type: 'OBJECT' }, true)).toEqual({ type: 'object', properties: {} });
    const given = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(parametersJsonSchema(given, false)).toBe(given);
  });
});
