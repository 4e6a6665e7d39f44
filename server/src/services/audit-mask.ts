import { SECRET_CONFIG_FIELDS } from '@sluice/contract/channel-config';
import { isOptionKey, isSecretOptionKey } from '@sluice/contract/option-keys';
import { MASKED, MASKED_CHANGED } from '@sluice/contract/schemas/audit';

const SNAKE_SECRET = /(^|_)(key|password|token|secret|sk)$/i;
const CAMEL_SECRET = /(Key|Password|Token|Secret)$/;
const CONFIG_SECRETS: ReadonlySet<string> = new Set(SECRET_CONFIG_FIELDS);

/**
 * Whether a field holds a secret: a channel or redemption `key`, a `password`, an `access_token`,
 * a `client_secret`, the secret fields of a channel's config, and the options the option table
 * calls secret (others one-api knows are judged by their name, as the option routes judge them).
 */
export const isSecretField = (name: string): boolean =>
  isOptionKey(name)
    ? isSecretOptionKey(name)
    : SNAKE_SECRET.test(name) || CAMEL_SECRET.test(name) || CONFIG_SECRETS.has(name);

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A text holding a JSON object (a channel's config): read as the object, so its secrets are masked too. */
const asObject = (value: unknown): Plain | undefined => {
  if (isPlain(value)) return value;
  if (typeof value !== 'string' || !value.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isPlain(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

const maskValue = (value: unknown, other: unknown, changedMark: boolean): unknown => {
  if (isEmpty(value)) return value;
  return changedMark && !isEmpty(other) && JSON.stringify(other) !== JSON.stringify(value)
    ? MASKED_CHANGED
    : MASKED;
};

/** One side of a pair, its secrets masked; `other` is the other side (for "changed" on the after side). */
const maskSide = (value: unknown, other: unknown, isAfter: boolean): unknown => {
  if (Array.isArray(value)) return value.map((item) => maskSide(item, undefined, isAfter));
  const object = asObject(value);
  if (!object) return value;
  const otherObject = asObject(other) ?? {};
  const masked: Plain = {};
  for (const [name, field] of Object.entries(object))
    masked[name] = isSecretField(name)
      ? maskValue(field, otherObject[name], isAfter)
      : maskSide(field, otherObject[name], isAfter);
  return masked;
};

/**
 * The before and after of a change with every secret replaced: by MASKED, or on the after side by
 * MASKED_CHANGED when the change replaced it (a rotated key shows, the key never does). Empty values
 * stay as they are (an unset secret is not a secret). Nested objects and JSON texts of objects (a
 * channel's config) are masked field by field.
 */
export const maskPair = (before: unknown, after: unknown): { before: unknown; after: unknown } => ({
  before: maskSide(before, undefined, false),
  after: maskSide(after, before, true),
});
