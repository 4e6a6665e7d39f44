import { statusSchema, type Status } from '@sluice/contract/schemas/status';
import { i18n } from '../i18n/i18n.js';
import { api } from '../lib/api-client.js';
import { storeStatus } from '../lib/status.js';
import { showError } from '../lib/toast.js';

/**
 * Startup (spec §1): the saved user is read from storage by the session hooks; this fetches the
 * public status record and stores it (system name, logo, footer, quota per unit, currency flag, chat
 * link). The layout sets the title and icon from the stored name and logo.
 */
export const loadStatus = async (): Promise<Status | undefined> => {
  try {
    const status = await api.get('/api/status', statusSchema);
    storeStatus(status);
    return status;
  } catch {
    showError(i18n.t('errors.cannotConnect'));
    return undefined;
  }
};

/** Sets the page title and icon (spec §1). */
export const applyBranding = (systemName: string, logo: string): void => {
  document.title = systemName;
  let icon = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
  if (!icon) {
    icon = document.createElement('link');
    icon.rel = 'icon';
    document.head.append(icon);
  }
  if (icon.getAttribute('href') !== logo) icon.href = logo;
};
