import type { RelayRequestMeta } from '../adaptor.js';

/** The Gemini API version of channels that set none and of a process without GEMINI_VERSION. */
export const GEMINI_DEFAULT_API_VERSION = 'v1beta';

/** Models that exist only in v1beta (system instructions, tools, thinking): one-api's rule, extended. */
const V1BETA_ONLY = /gemini-(1\.5|[2-9])/;

/**
 * The API version a request goes to: the channel's own `api_version` when it sets one; else v1beta
 * for the models only v1beta serves, whatever GEMINI_VERSION says (one-api forces it so for
 * gemini-1.5 and 2.0; later generations too); else GEMINI_VERSION, else v1beta.
 */
export const geminiVersionOf = (meta: RelayRequestMeta): string =>
  meta.channel.config['api_version'] ||
  (V1BETA_ONLY.test(meta.model) ? GEMINI_DEFAULT_API_VERSION : '') ||
  meta.settings?.geminiVersion ||
  GEMINI_DEFAULT_API_VERSION;
