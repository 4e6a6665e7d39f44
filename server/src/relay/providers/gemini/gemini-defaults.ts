/** The Gemini API version of channels that set none and of a process without GEMINI_VERSION. */
export const GEMINI_DEFAULT_API_VERSION = 'v1beta';
