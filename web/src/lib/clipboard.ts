import { showSuccess, showWarning } from './toast.js';

/**
 * Copies text to the clipboard. Returns false when the browser refuses (no permission, insecure
 * context); the caller then shows the manual-copy warning (or uses `copyWithToast`) and puts the text
 * where the user can copy it (spec §8: the search box of the list).
 */
export const copyText = async (text: string): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return legacyCopy(text);
  }
};

/** document.execCommand('copy') for browsers without the async clipboard (plain HTTP). */
const legacyCopy = (text: string): boolean => {
  if (typeof document === 'undefined' || typeof document.execCommand !== 'function') return false;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
};

/**
 * Copies and reports: a success toast, or the manual-copy warning (spec §8). Returns whether the copy
 * worked, so the caller can put the text where the user can copy it by hand.
 */
export const copyWithToast = async (
  text: string,
  messages: { readonly success: string; readonly manual: string },
): Promise<boolean> => {
  const copied = await copyText(text);
  if (copied) showSuccess(messages.success);
  else showWarning(messages.manual);
  return copied;
};
