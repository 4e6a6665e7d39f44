import type { Status } from '@sluice/contract/schemas/status';
import { readStorage, useStoredValue, writeStorage } from './storage.js';

/** The built-in name and logo used until the status record says otherwise (spec §1). */
export const DEFAULT_SYSTEM_NAME = 'Sluice';
export const DEFAULT_LOGO = '/logo.png';
export const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** Stores the public status record and the separate keys spec §1 lists. */
export const storeStatus = (status: Status): void => {
  writeStorage('status', status);
  writeStorage('system_name', status.system_name);
  writeStorage('logo', status.logo);
  writeStorage('footer_html', status.footer_html);
  writeStorage('quota_per_unit', status.quota_per_unit);
  writeStorage('display_in_currency', status.display_in_currency);
  writeStorage('chat_link', status.chat_link);
};

export const systemNameOf = (stored: string | undefined): string => stored || DEFAULT_SYSTEM_NAME;
export const logoOf = (stored: string | undefined): string => stored || DEFAULT_LOGO;

/** The status record last fetched (undefined before the first successful GET /api/status). */
export const useStatus = (): Status | undefined => useStoredValue('status');

/** What the layout shows: name, logo, footer and chat link, with their defaults. */
export const useBranding = () => {
  const systemName = useStoredValue('system_name');
  const logo = useStoredValue('logo');
  const footerHtml = useStoredValue('footer_html');
  const chatLink = useStoredValue('chat_link');
  return {
    systemName: systemNameOf(systemName),
    logo: logoOf(logo),
    footerHtml: footerHtml ?? '',
    chatLink: chatLink ?? '',
  };
};

/** The server address the console advertises: the configured one, else this origin. */
export const serverAddress = (): string => {
  const configured = readStorage('status')?.server_address ?? '';
  return (configured || globalThis.location.origin).replace(/\/+$/, '');
};
