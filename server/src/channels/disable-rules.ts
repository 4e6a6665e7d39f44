import type { AppError } from '../lib/app-error.js';

const TYPES = new Set(['insufficient_quota', 'authentication_error', 'permission_error', 'forbidden']);
const CODES = new Set(['invalid_api_key', 'account_deactivated']);
const PHRASES = [
  'your access was terminated',
  'violation of our policies',
  'your credit balance is too low',
  'organization has been disabled',
  'credit',
  'balance',
  'permission denied',
  'organization has been restricted',
  'api key not valid',
  'api key expired',
  '欠费',
];

/**
 * one-api's rule for disabling a channel automatically after an error: 401, an account-level error
 * type or code, or a message that says the account is out of money or shut.
 */
export const shouldDisableChannel = (error: AppError): boolean => {
  if (error.status === 401) return true;
  if (TYPES.has(error.type) || CODES.has(error.code)) return true;
  const message = error.message.toLowerCase();
  return PHRASES.some((phrase) => message.includes(phrase));
};

/**
 * Whether one of a channel's several keys is refused for good: 401 or 403, or what one-api's rule
 * disables a channel for (its account is out of money or shut). Keys are disabled whatever
 * AutomaticDisableChannelEnabled says (the channel keeps serving with its other keys).
 */
export const isKeyRefusal = (error: AppError): boolean => error.status === 403 || shouldDisableChannel(error);
