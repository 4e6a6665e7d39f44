import { USER_LIMITS } from '@sluice/contract/schemas/user';

/** Translation keys of the registration checks of spec §5. */
export type RegisterProblem =
  | 'auth.validation.required'
  | 'auth.validation.passwordTooShort'
  | 'auth.validation.passwordMismatch'
  | 'auth.validation.turnstilePending'
  | 'auth.validation.emailCodeRequired';

export interface RegisterInput {
  readonly username: string;
  readonly password: string;
  readonly password2: string;
  readonly email: string;
  readonly verificationCode: string;
}

export interface RegisterContext {
  readonly emailVerification: boolean;
  readonly turnstileEnabled: boolean;
  readonly turnstileToken: string;
}

/**
 * The first problem of a registration form, or undefined when it may be sent. Order as one-api:
 * password length, confirmation, then the human check. The upper limits (username 12, password 20)
 * are hints in the placeholders; the server enforces them.
 */
export const validateRegistration = (
  input: RegisterInput,
  context: RegisterContext,
): RegisterProblem | undefined => {
  if (input.username.trim() === '' || input.password === '') return 'auth.validation.required';
  if (input.password.length < USER_LIMITS.passwordMin) return 'auth.validation.passwordTooShort';
  if (input.password !== input.password2) return 'auth.validation.passwordMismatch';
  if (context.emailVerification && (input.email.trim() === '' || input.verificationCode.trim() === ''))
    return 'auth.validation.emailCodeRequired';
  if (context.turnstileEnabled && context.turnstileToken === '') return 'auth.validation.turnstilePending';
  return undefined;
};

/** The human-check warning is a warning; the other checks are informational (as one-api shows them). */
export const problemSeverity = (problem: RegisterProblem): 'warning' | 'info' =>
  problem === 'auth.validation.turnstilePending' ? 'warning' : 'info';
