import { i18n } from '../i18n/i18n.js';
import { BusinessError, HttpError } from './api-client.js';
import { serverText } from './server-messages.js';
import { signOut } from './session.js';
import { showError, showInfo } from './toast.js';

/** Where a 401 sends the browser (spec §4). */
export const EXPIRED_LOGIN_PATH = '/login?expired=true';

export interface ErrorHandlerDeps {
  readonly showError: (message: string) => void;
  readonly showInfo: (message: string) => void;
  readonly translate: (key: ErrorTextKey, values?: Record<string, string>) => string;
  /** A message of the server in the console's language (unknown messages as they are). */
  readonly serverText?: (message: string) => string;
  /** Full navigation (a 401 resets every state). */
  readonly redirect: (url: string) => void;
  readonly currentPath: () => string;
  readonly clearSession: () => void;
}

export type ErrorTextKey =
  'errors.tooManyRequests' | 'errors.internal' | 'errors.demoOnly' | 'errors.withMessage';

export interface ReportOptions {
  /** Shown instead of the error's text when the failure is not an answer of the server (no HTTP status). */
  readonly fallback?: string;
}

/**
 * The one error handler of spec §8:
 * - 401 → go to /login?expired=true, whose page forgets the stored user (on /login: forget it now);
 * - 429 / 500 → their fixed error toasts; 405 → an info toast (demo site without server);
 * - other statuses → 'Error: ' + the message;
 * - business failures (`success: false`) → the server's message as an error toast;
 * - anything else → 'Error: ' + its message, or 'Error: ' + the value when it has no message.
 */
export const createErrorHandler =
  (deps: ErrorHandlerDeps) =>
  (error: unknown, options: ReportOptions = {}): void => {
    const fromServer = deps.serverText ?? ((message: string) => message);
    if (error instanceof HttpError) {
      switch (error.status) {
        case 401:
          // Away from /login the stored user is left to the login page, which forgets it on
          // ?expired=true. Forgetting it here would race the full navigation: the guard of the page
          // still shown, or of a page another navigation opens before this one lands (the user is
          // in localStorage, shared by both documents), sends the browser to a plain /login.
          if (deps.currentPath() === '/login') deps.clearSession();
          else deps.redirect(EXPIRED_LOGIN_PATH);
          return;
        case 429:
          deps.showError(deps.translate('errors.tooManyRequests'));
          return;
        case 500:
          deps.showError(deps.translate('errors.internal'));
          return;
        case 405:
          deps.showInfo(deps.translate('errors.demoOnly'));
          return;
        default:
          deps.showError(deps.translate('errors.withMessage', { message: fromServer(error.message) }));
          return;
      }
    }
    if (error instanceof BusinessError) {
      deps.showError(fromServer(error.message));
      return;
    }
    if (error instanceof DOMException && error.name === 'AbortError') return;
    if (options.fallback !== undefined) {
      deps.showError(options.fallback);
      return;
    }
    const message = error instanceof Error && error.message !== '' ? error.message : String(error);
    deps.showError(deps.translate('errors.withMessage', { message }));
  };

/** The handler wired to the real toasts, translations and browser location. */
export const handleError = createErrorHandler({
  showError,
  showInfo,
  translate: (key, values) => i18n.t(key, { ...values, defaultValue: key }),
  serverText: (message) =>
    serverText(message, (key, values) => i18n.t(key, { ...values, defaultValue: message })),
  redirect: (url) => globalThis.location.assign(url),
  currentPath: () => globalThis.location.pathname,
  clearSession: signOut,
});
