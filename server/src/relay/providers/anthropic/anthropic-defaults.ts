/** The `anthropic-version` sent when the client sent none. */
export const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';
