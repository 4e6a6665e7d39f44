import { createTheme, type MantineColorScheme, type MantineColorSchemeManager } from '@mantine/core';
import { readStorage, removeStorage, subscribeOtherTabs, writeStorage } from '../lib/storage.js';

/**
 * The console theme. `xs` is the mobile boundary of spec §1: up to 600 px is mobile, so every
 * `hiddenFrom="xs"` / `visibleFrom="xs"` switches at 601 px.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  breakpoints: { xs: '37.5625em', sm: '48em', md: '62em', lg: '75em', xl: '88em' },
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Micro Hei", sans-serif',
  components: {
    Card: { defaultProps: { withBorder: true, shadow: 'xs', padding: 'lg' } },
  },
});

/**
 * Light/dark choice remembered under the `color_scheme` storage key (parsed like every key). Until
 * the visitor switches, the console follows the browser (`auto`: `prefers-color-scheme`).
 *
 * Mantine calls `set` from the callback it subscribes with, so the subscription hears other tabs
 * only: hearing this tab's own write would call `set` again, for ever.
 */
export const DEFAULT_COLOR_SCHEME = 'auto' satisfies MantineColorScheme;

export const colorSchemeManager: MantineColorSchemeManager = (() => {
  let unsubscribe: (() => void) | undefined;
  return {
    get: (defaultValue) => readStorage('color_scheme') ?? defaultValue,
    set: (value) => {
      if (readStorage('color_scheme') !== value) writeStorage('color_scheme', value);
    },
    subscribe: (onUpdate) => {
      unsubscribe?.();
      unsubscribe = subscribeOtherTabs('color_scheme', (value) => onUpdate(value ?? DEFAULT_COLOR_SCHEME));
    },
    unsubscribe: () => {
      unsubscribe?.();
      unsubscribe = undefined;
    },
    clear: () => removeStorage('color_scheme'),
  };
})();
