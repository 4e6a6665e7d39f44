import { useTranslation } from 'react-i18next';
import { readStorage, useStoredValue, writeStorage } from '../../lib/storage.js';
import type { StoredConversation } from '../../lib/stored-conversation.js';
import { showWarning } from '../../lib/toast.js';
import { withConversation } from './conversation-model.js';

/**
 * The signed-in user's conversations in the browser's storage (key `playground`), newest first:
 * save (insert or replace) and remove. Images are kept as data URLs, so a full storage is possible: a
 * save that does not fit warns and leaves the stored list as it was.
 */
export const useConversations = (userId: number) => {
  const { t } = useTranslation();
  const stored = useStoredValue('playground');
  const conversations = (stored ?? []).filter((conversation) => conversation.userId === userId);
  const write = (list: StoredConversation[]) => {
    try {
      writeStorage('playground', list);
    } catch {
      // The browser refused (QuotaExceededError): the conversation stays on screen, unsaved.
      showWarning(t('playground.storageFull'));
    }
  };
  return {
    conversations,
    save: (conversation: StoredConversation) =>
      write(withConversation(readStorage('playground') ?? [], conversation)),
    remove: (id: string) =>
      write((readStorage('playground') ?? []).filter((conversation) => conversation.id !== id)),
  };
};
