import { useCallback, useEffect, useState } from 'react';

/** Spec §9: the email-code and password-reset buttons wait 30 s after a click. */
export const COUNTDOWN_SECONDS = 30;

/** A countdown in whole seconds: `start()` begins it; `active` while seconds remain. */
export const useCountdown = (seconds: number = COUNTDOWN_SECONDS) => {
  const [remaining, setRemaining] = useState(0);
  useEffect(() => {
    if (remaining <= 0) return;
    const timer = setTimeout(() => setRemaining((value) => value - 1), 1000);
    return () => clearTimeout(timer);
  }, [remaining]);
  const start = useCallback(() => setRemaining(seconds), [seconds]);
  return { remaining, active: remaining > 0, start };
};
