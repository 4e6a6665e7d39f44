import { isSecretOptionKey, type OptionKey } from '@sluice/contract/option-keys';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { loadStatus } from '../../../app/bootstrap.js';
import { BusinessError } from '../../../lib/api-client.js';
import { showError, showInfo, showSuccess } from '../../../lib/toast.js';
import { getOptions, putOption, putOptions } from './option-api.js';
import {
  collectUpdates,
  formValues,
  invalidRatio,
  refusedKey,
  type OptionUpdate,
} from './option-save-model.js';

export const OPTIONS_QUERY_KEY = ['options'] as const;

/** GET /api/option/ as form values (JSON ratios pretty-printed, `{}` as empty). */
export const useOptions = () =>
  useQuery({ queryKey: OPTIONS_QUERY_KEY, queryFn: getOptions, select: formValues });

/**
 * Saves updates, all or nothing: one update through one-api's PUT /api/option/, several through
 * PUT /api/option/batch (validated together, written in one transaction). Then re-reads the options
 * and the public status (header, title, footer and quota display follow at once).
 */
export const useSaveOptions = () => {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (updates: readonly OptionUpdate[]) => {
      const [only] = updates;
      if (only && updates.length === 1) await putOption(only.key, only.value);
      else await putOptions(updates);
    },
    onSuccess: () => {
      showSuccess(t('common.operationSuccess'));
    },
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: OPTIONS_QUERY_KEY });
      await loadStatus();
    },
  });
};

/**
 * The form of one settings section: its keys' values, reset when their stored values change (a
 * save in another section keeps this one's edits). Secrets start empty and are emptied after a save.
 */
export const useOptionForm = (keys: readonly OptionKey[]) => {
  const { t } = useTranslation();
  const options = useOptions();
  const stored = keys.map((key) => options.data?.[key] ?? '');
  const snapshot = JSON.stringify(stored);
  const original = Object.fromEntries(keys.map((key, index) => [key, stored[index] ?? '']));
  const [state, setState] = useState({ snapshot, values: original });
  if (state.snapshot !== snapshot) setState({ snapshot, values: original });
  const values = state.snapshot === snapshot ? state.values : original;
  const saveMutation = useSaveOptions();

  const set = (key: OptionKey, value: string) =>
    setState((current) => ({ ...current, values: { ...current.values, [key]: value } }));
  const clearSecrets = () =>
    setState((current) => ({
      ...current,
      values: Object.fromEntries(
        Object.entries(current.values).map(([key, value]) => [key, isSecretOptionKey(key) ? '' : value]),
      ),
    }));

  /** Saves the changed values (and extra updates); ratio texts must be valid JSON (spec §5). */
  const save = (extra: readonly OptionUpdate[] = []) => {
    const updates = [...collectUpdates(keys, original, values), ...extra];
    const invalid = invalidRatio(updates);
    if (invalid) {
      showError(t(`options.invalidJson.${invalid}`));
      return;
    }
    if (updates.length === 0) {
      showInfo(t('options.noChanges'));
      return;
    }
    saveMutation.mutate(updates, { onSuccess: clearSecrets });
  };

  // The refused save's message (the server names the option first), shown beside the section.
  const saveError = saveMutation.error instanceof BusinessError ? saveMutation.error.message : undefined;
  const failedKey = saveError === undefined ? undefined : refusedKey(keys, saveError);

  return {
    loading: options.isPending,
    original,
    values,
    set,
    save,
    saving: saveMutation.isPending,
    saveError,
    failedKey,
  };
};
