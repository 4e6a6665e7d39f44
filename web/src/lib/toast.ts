import { notifications } from '@mantine/notifications';
import { createElement, type ReactNode } from 'react';

/** Spec §9: toast durations in ms. Notices persist until closed (their duration is for reference). */
export const TOAST_DURATIONS = {
  success: 1500,
  info: 3000,
  error: 5000,
  warning: 10_000,
  notice: 20_000,
} as const;

export type ToastKind = keyof typeof TOAST_DURATIONS;

const COLORS: Record<ToastKind, string> = {
  success: 'teal',
  info: 'blue',
  error: 'red',
  warning: 'yellow',
  notice: 'indigo',
};

/** Mobile means a window 600 px wide or less (spec §1). */
export const MOBILE_MAX_WIDTH = 600;
export const isMobileWidth = (width: number): boolean => width <= MOBILE_MAX_WIDTH;

/** Top centre on mobile, top right otherwise. */
export const toastPosition = (width: number = globalThis.innerWidth): 'top-center' | 'top-right' =>
  isMobileWidth(width) ? 'top-center' : 'top-right';

/** Shows one toast; returns its id. */
export const showToast = (kind: ToastKind, message: ReactNode, title?: ReactNode): string =>
  notifications.show({
    color: COLORS[kind],
    message,
    title,
    position: toastPosition(),
    autoClose: kind === 'notice' ? false : TOAST_DURATIONS[kind],
    withCloseButton: true,
    'data-toast': kind,
  });

export const showSuccess = (message: ReactNode) => showToast('success', message);
export const showInfo = (message: ReactNode) => showToast('info', message);
export const showError = (message: ReactNode) => showToast('error', message);
export const showWarning = (message: ReactNode) => showToast('warning', message);

/** A notice: persistent until closed; `html` renders trusted HTML (the admin's notice text). */
export const showNotice = (message: string, html = false) =>
  showToast(
    'notice',
    html
      ? createElement('div', { className: 'html-content', dangerouslySetInnerHTML: { __html: message } })
      : message,
  );
