import type { OPTION_DEFINITIONS, OptionDefinition, OptionKey } from '@sluice/contract/option-keys';
import { z } from 'zod';
import { businessError } from '../lib/app-error.js';

type ValueOf<D> = D extends { kind: 'bool' }
  ? boolean
  : D extends { kind: 'int' | 'float' }
    ? number
    : D extends { kind: 'json' }
      ? Record<string, number>
      : string;

/** Every option with its typed value. */
export type OptionValues = { [K in OptionKey]: ValueOf<(typeof OPTION_DEFINITIONS)[K]> };

const ratioMapSchema = z.record(z.string(), z.number().finite().nonnegative());

const parseRatioMap = (value: string): Record<string, number> | undefined => {
  try {
    const parsed = ratioMapSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** Reads a stored value; a value that does not parse falls back to the default. */
export const parseOptionValue = (definition: OptionDefinition, value: string): unknown => {
  switch (definition.kind) {
    case 'bool':
      return value === 'true';
    case 'int':
    case 'float': {
      const number = Number(value);
      return value.trim() !== '' && Number.isFinite(number) ? number : Number(definition.defaultValue);
    }
    case 'json':
      return parseRatioMap(value) ?? parseRatioMap(definition.defaultValue) ?? {};
    case 'string':
      return value;
  }
};

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Checks a value before anything is stored; answers the value to store (normalised). */
export const validateOptionValue = (key: OptionKey, definition: OptionDefinition, value: string): string => {
  const trimmed = value.trim();
  switch (definition.kind) {
    case 'bool':
      if (trimmed !== 'true' && trimmed !== 'false') throw businessError(`${key} must be true or false`);
      return trimmed;
    case 'int':
      if (!/^-?\d+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed)))
        throw businessError(`${key} must be a whole number`);
      if (Number(trimmed) < 0) throw businessError(`${key} must not be negative`);
      return trimmed;
    case 'float':
      if (!NUMBER.test(trimmed)) throw businessError(`${key} must be a number`);
      if (Number(trimmed) < 0) throw businessError(`${key} must not be negative`);
      return trimmed;
    case 'json': {
      if (trimmed === '') return '{}';
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch {
        throw businessError(`${key} is not a valid JSON string`);
      }
      if (!ratioMapSchema.safeParse(parsed).success)
        throw businessError(`${key} must be a JSON object mapping names to non-negative numbers`);
      return trimmed;
    }
    case 'string':
      if (definition.choices) {
        if (!definition.choices.includes(trimmed))
          throw businessError(`${key} must be one of ${definition.choices.join(', ')}`);
        return trimmed;
      }
      return key === 'ServerAddress' ? trimmed.replace(/\/+$/, '') : value;
  }
};
