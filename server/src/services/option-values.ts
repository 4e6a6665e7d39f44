import type { OPTION_DEFINITIONS, OptionDefinition, OptionKey } from '@sluice/contract/option-keys';
import { checkRatioMap, readRatioMap, type RatioMapProblem } from '@sluice/contract/ratio-map';
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

/**
 * Reads a stored value; a value that does not parse falls back to the default. A ratio map keeps
 * its valid entries and drops the others (a one-api database may hold `"openrouter/auto": -500000`
 * beside the operator's prices, which must not all be lost for it).
 */
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
      return readRatioMap(value) ?? readRatioMap(definition.defaultValue) ?? {};
    case 'string':
      return value;
  }
};

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Why a ratio map is refused, naming the option and, for a bad entry, the entry. */
const ratioMapMessage = (key: string, problem: RatioMapProblem): string => {
  switch (problem.kind) {
    case 'json':
      return `${key} is not a valid JSON string`;
    case 'object':
      return `${key} must be a JSON object mapping names to non-negative numbers`;
    case 'entry':
      return `${key}: ${JSON.stringify(problem.name)} must be a non-negative number`;
  }
};

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
      const checked = checkRatioMap(trimmed);
      if (!checked.ok) throw businessError(ratioMapMessage(key, checked.problem));
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
