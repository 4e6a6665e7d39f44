import { Box } from '@mantine/core';
import { useEffect, useRef } from 'react';

/** The human-check widget of the third-party challenge provider (Cloudflare Turnstile). */
interface TurnstileApi {
  render(element: HTMLElement, options: { sitekey: string; callback: (token: string) => void }): string;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

const SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
let scriptLoad: Promise<TurnstileApi | undefined> | undefined;

const loadScript = (): Promise<TurnstileApi | undefined> => {
  scriptLoad ??= new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.onload = () => resolve(window.turnstile);
    script.onerror = () => {
      scriptLoad = undefined;
      resolve(undefined);
    };
    document.head.append(script);
  });
  return scriptLoad;
};

/** Renders the widget; `onVerify` receives the token the server checks (`?turnstile=`). */
export const TurnstileWidget = ({
  siteKey,
  onVerify,
}: {
  siteKey: string;
  onVerify: (token: string) => void;
}) => {
  const container = useRef<HTMLDivElement>(null);
  const callback = useRef(onVerify);
  callback.current = onVerify;
  useEffect(() => {
    let widgetId: string | undefined;
    let cancelled = false;
    void loadScript().then((turnstile) => {
      if (cancelled || !turnstile || !container.current) return;
      widgetId = turnstile.render(container.current, {
        sitekey: siteKey,
        callback: (token) => callback.current(token),
      });
    });
    return () => {
      cancelled = true;
      if (widgetId !== undefined) window.turnstile?.remove(widgetId);
    };
  }, [siteKey]);
  return <Box ref={container} mih={65} data-testid="turnstile" />;
};
