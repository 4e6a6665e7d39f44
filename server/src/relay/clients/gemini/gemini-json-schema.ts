import { camelKeys } from './gemini-wire.js';

/**
 * Gemini's Schema (a subset of OpenAPI 3.0: upper-case `type`s, `nullable`, `propertyOrdering`, int64
 * counts written as strings) as the JSON Schema OpenAI's tools and response_format take. Lower-case
 * types (Google's own examples write both) and JSON Schema keys Gemini does not know pass as they are.
 */
const COUNTS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/** Keys that steer Gemini only: no JSON Schema meaning. */
const GEMINI_ONLY = new Set(['propertyOrdering', 'example']);

const typeOf = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const type = value.toLowerCase();
  return type === 'type_unspecified' ? undefined : type;
};

const schemaMap = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, geminiJsonSchema(child)]));
};

/** One Gemini Schema (and everything under it) as JSON Schema. */
export const geminiJsonSchema = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const schema = camelKeys(value) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(schema)) {
    if (GEMINI_ONLY.has(key) || key === 'nullable') continue;
    if (key === 'type') {
      const type = typeOf(child);
      if (type !== undefined) out[key] = type;
    } else if (key === 'properties' || key === '$defs' || key === 'definitions') out[key] = schemaMap(child);
    else if (key === 'items' || key === 'not' || key === 'additionalProperties')
      out[key] = typeof child === 'object' && child !== null ? geminiJsonSchema(child) : child;
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems')
      out[key] = Array.isArray(child) ? child.map((item) => geminiJsonSchema(item)) : child;
    else if (COUNTS.has(key) && typeof child === 'string' && /^\d+$/.test(child)) out[key] = Number(child);
    else if (key === 'format' && child === 'enum') continue;
    else out[key] = child;
  }
  if (schema['nullable'] === true) makeNullable(out);
  return out;
};

/** `nullable: true` in JSON Schema's words: `null` among the types (or the alternatives). */
const makeNullable = (out: Record<string, unknown>): void => {
  const type = out['type'];
  if (typeof type === 'string') out['type'] = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) out['type'] = [...(type as unknown[]), 'null'];
  else if (Array.isArray(out['anyOf'])) out['anyOf'] = [...(out['anyOf'] as unknown[]), { type: 'null' }];
};

/** A function's parameters as JSON Schema: an object schema, with `properties` when it has none. */
export const parametersJsonSchema = (
  schema: Record<string, unknown>,
  convert: boolean,
): Record<string, unknown> => {
  const converted = (convert ? geminiJsonSchema(schema) : schema) as Record<string, unknown>;
  if (converted['type'] === 'object' && converted['properties'] === undefined)
    return { ...converted, properties: {} };
  return converted;
};
