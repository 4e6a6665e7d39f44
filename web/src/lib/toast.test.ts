// @vitest-environment happy-dom
import { notifications, notificationsStore } from '@mantine/notifications';
import { afterEach, describe, expect, it } from 'vitest';
import {
  showError,
  showInfo,
  showNotice,
  showSuccess,
  showWarning,
  toastPosition,
  TOAST_DURATIONS,
} from './toast.js';

const shown = () => notificationsStore.getState().notifications;

describe('toasts', () => {
  afterEach(() => notifications.clean());

  it('sit top centre at 600 px or less, top right above', () => {
    expect(toastPosition(390)).toBe('top-center');
    expect(toastPosition(600)).toBe('top-center');
    expect(toastPosition(601)).toBe('top-right');
    expect(toastPosition(1280)).toBe('top-right');
  });

  it('close after the durations of spec §9', () => {
    expect(TOAST_DURATIONS).toEqual({
      success: 1500,
      info: 3000,
      error: 5000,
      warning: 10000,
      notice: 20000,
    });
    showSuccess('s');
    showInfo('i');
    showError('e');
    showWarning('w');
    expect(shown().map((toast) => toast.autoClose)).toEqual([1500, 3000, 5000, 10000]);
  });

  it('place every toast by the window width at the time it is shown', () => {
    window.innerWidth = 390;
    showError('narrow');
    window.innerWidth = 1280;
    showError('wide');
    expect(shown().map((toast) => toast.position)).toEqual(['top-center', 'top-right']);
  });

  it('keep notices until closed, rendering their HTML', () => {
    showNotice('<b>maintenance</b> tonight', true);
    const [notice] = shown();
    expect(notice?.autoClose).toBe(false);
    expect(notice?.withCloseButton).toBe(true);
    expect(JSON.stringify(notice?.message)).toContain('<b>maintenance</b> tonight');
  });
});
