import type { enServer } from '../i18n/en/server.js';

/**
 * The server's messages as translation keys. `/api` answers a business failure with
 * `{success: false, message}`: one-api's stable English texts, in effect its error codes. The
 * console shows the translation of a message it knows (whole, or by its prefix with the rest as
 * `detail`), and any other message as the server sent it.
 */
export type ServerMessageKey = keyof (typeof enServer)['server'];

export const SERVER_MESSAGES: Readonly<Record<string, ServerMessageKey>> = {
  'username or password is wrong, or the user is banned': 'loginFailed',
  'no permission: insufficient role': 'insufficientRole',
  'no permission: not logged in and no access token': 'notLoggedIn',
  'no permission: the access token is invalid': 'accessTokenInvalid',
  'no permission: only the super administrator can change this option': 'rootOnlyOption',
  'the user is banned': 'userBanned',
  'user does not exist': 'userMissing',
  'username already taken': 'usernameTaken',
  'token does not exist': 'tokenMissing',
  'redemption code does not exist': 'redemptionMissing',
  'redeem failed: invalid redemption code': 'redeemInvalid',
  'redeem failed: this code has already been used': 'redeemUsed',
  'the administrator has closed new-user registration': 'registrationClosed',
  'the administrator has turned off password login': 'passwordLoginOff',
  'the administrator has closed password registration; use a third-party account': 'passwordRegisterOff',
  'email verification is on: enter your email and the verification code': 'emailVerificationOn',
  'the verification code is wrong or has expired': 'verificationWrong',
  'this email address is not registered': 'emailNotRegistered',
  'the reset link is invalid or has expired': 'resetLinkInvalid',
  'the super administrator cannot be deleted': 'rootNotDeleted',
  'the super administrator cannot be demoted': 'rootNotDemoted',
  'the super administrator cannot be disabled': 'rootNotDisabled',
  'no permission to update users of the same or higher level': 'sameLevelUpdate',
  'no permission to delete users of the same or higher level': 'sameLevelDelete',
  'this user is already an administrator': 'alreadyAdmin',
  'this user is already a common user': 'alreadyCommon',
  'the administrator has not enabled login and registration with GitHub': 'githubOff',
  'the administrator has not enabled login and registration with Lark': 'larkOff',
  'the administrator has not enabled login and registration with WeChat': 'wechatOff',
  'state is empty or not same': 'stateMismatch',
  'the request body is too large': 'bodyTooLarge',
  'invalid parameter': 'invalidParameter',
  'the two-factor code is wrong': 'twoFactorWrong',
  'this two-factor code has already been used: wait for the next one': 'twoFactorReplayed',
  'too many wrong two-factor codes: two-factor sign-in is locked for 15 minutes': 'twoFactorLocked',
  'two-factor authentication is not on': 'twoFactorNotOn',
  'two-factor authentication is already on': 'twoFactorAlreadyOn',
  'start the two-factor setup first': 'twoFactorNoSetup',
  'two-factor authentication is required for administrators: turn it on in the personal settings':
    'twoFactorRequired',
  'the sign-in has expired or was not started: sign in again': 'signInExpired',
  'the passkey could not be verified': 'passkeyRefused',
  'this passkey is not registered here': 'passkeyUnknown',
  'passkey does not exist': 'passkeyMissing',
  'this passkey is already registered': 'passkeyTaken',
  'the passkey request has expired or was used: try again': 'passkeyExpired',
  'this passkey belongs to another account': 'passkeyOtherUser',
  'the administrator has not enabled sign-in with OpenID Connect': 'oidcOff',
  'this email domain may not sign in with OpenID Connect': 'oidcDomainRefused',
  'this OpenID Connect account is already bound': 'oidcAlreadyBound',
  'the OpenID provider did not say who signed in': 'oidcNoSubject',
  'the OpenID Connect issuer is not a valid URL': 'oidcIssuerInvalid',
  'fill in the OpenID Connect issuer before enabling OpenID Connect sign-in': 'oidcIssuerRequired',
  'OidcGroupMapping must be a JSON object of claim values and group names, e.g. {"admins": "vip"}':
    'oidcGroupMappingInvalid',
};

/** Messages that carry a detail after a fixed start. */
export const SERVER_MESSAGE_PREFIXES: readonly (readonly [string, ServerMessageKey])[] = [
  ['invalid parameter: ', 'invalidParameterDetail'],
  ['failed to send email: ', 'emailFailed'],
  ['the passkey could not be verified: ', 'passkeyRefusedDetail'],
  ['the OpenID Connect sign-in failed: ', 'oidcFailed'],
  ['the OpenID provider cannot be reached: ', 'oidcUnreachable'],
];

/** The translation of a server message, or the message itself when the console does not know it. */
export const serverText = (
  message: string,
  translate: (key: `server.${ServerMessageKey}`, values?: Record<string, string>) => string,
): string => {
  const known = SERVER_MESSAGES[message];
  if (known) return translate(`server.${known}`);
  const prefixed = SERVER_MESSAGE_PREFIXES.find(([prefix]) => message.startsWith(prefix));
  if (prefixed) return translate(`server.${prefixed[1]}`, { detail: message.slice(prefixed[0].length) });
  return message;
};
