import { useMediaQuery } from '@mantine/hooks';

/** Spec §1: a phone is a window of 600 px or less (the theme's `xs` breakpoint starts at 601 px). */
export const PHONE_QUERY = '(max-width: 37.5em)';

/** True on a phone-sized window; read at once (no first render as a desktop) and on every resize. */
export const usePhone = (): boolean => useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
