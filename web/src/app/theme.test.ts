// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { colorSchemeManager } from './theme.js';

describe('the colour-scheme manager', () => {
  beforeEach(() => {
    colorSchemeManager.unsubscribe();
    localStorage.clear();
  });

  it('follows the browser until a choice is stored', () => {
    expect(colorSchemeManager.get('auto')).toBe('auto');
    colorSchemeManager.set('dark');
    expect(colorSchemeManager.get('auto')).toBe('dark');
    colorSchemeManager.clear();
    expect(colorSchemeManager.get('auto')).toBe('auto');
  });

  it('does not hear its own writes: Mantine sets again from the callback it subscribes with', () => {
    const onUpdate = vi.fn((value: 'light' | 'dark' | 'auto') => colorSchemeManager.set(value));
    colorSchemeManager.subscribe(onUpdate);
    expect(() => colorSchemeManager.set('dark')).not.toThrow();
    colorSchemeManager.set('light');
    expect(onUpdate).not.toHaveBeenCalled();
    expect(localStorage.getItem('color_scheme')).toBe('light');
  });

  it("hears another tab's choice, and reads a value it cannot parse as the browser's", () => {
    const onUpdate = vi.fn();
    colorSchemeManager.subscribe(onUpdate);
    localStorage.setItem('color_scheme', 'dark');
    window.dispatchEvent(new StorageEvent('storage', { key: 'color_scheme' }));
    localStorage.setItem('color_scheme', 'purple');
    window.dispatchEvent(new StorageEvent('storage', { key: 'color_scheme' }));
    expect(onUpdate.mock.calls).toEqual([['dark'], ['auto']]);
    colorSchemeManager.unsubscribe();
    window.dispatchEvent(new StorageEvent('storage', { key: 'color_scheme' }));
    expect(onUpdate).toHaveBeenCalledTimes(2);
  });
});
