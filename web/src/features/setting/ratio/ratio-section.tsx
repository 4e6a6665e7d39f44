import { Box, Button, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import type { OptionKey } from '@sluice/contract/option-keys';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/toast.js';
import { OptionField, type FieldSpec } from '../options/option-fields.js';
import { SaveRefused, useMayChangeOption } from '../options/option-section.js';
import { RATIO_KEYS } from '../options/option-save-model.js';
import { useOptionForm, useOptions } from '../options/use-options.js';
import { GroupLimitsEditor } from './group-limits-editor.js';
import { groupRows, invalidGroups } from './group-limits-model.js';
import { ModelPriceTable } from './model-price-table.js';
import { parseRatioText, ratioText, type PriceMaps } from './model-price-model.js';

type View = 'table' | 'json';

/** The maps the table edits; refused saves naming one of them open the JSON, where it is marked. */
const TABLE_KEYS: readonly OptionKey[] = ['ModelRatio', 'CompletionRatio'];

/** The ratio settings' options: the ratios, and the groups' limits and routing beside the group ratio. */
const SECTION_KEYS: readonly OptionKey[] = [...RATIO_KEYS, 'GroupRateLimits', 'GroupRoutingStrategies'];

/**
 * The ratio settings (spec §2): the model and completion ratios as a per-model price table or as
 * their JSON (two views of the same form values), the group and cache ratios as JSON below, a row
 * per group for its rate limits and routing, and one Save for them all (all or nothing: a refused
 * value stores none, and is named).
 */
export const RatioSection = () => {
  const { t } = useTranslation();
  const mayChange = useMayChangeOption();
  const keys: readonly OptionKey[] = SECTION_KEYS.filter(mayChange);
  const form = useOptionForm(keys);
  const serverStrategy = useOptions().data?.['RoutingStrategy'];
  const [view, setView] = useState<View>('table');
  const [seenError, setSeenError] = useState<string | undefined>();
  if (form.saveError !== seenError) {
    setSeenError(form.saveError);
    if (form.failedKey !== undefined && TABLE_KEYS.includes(form.failedKey)) setView('json');
  }
  const modelText = form.values['ModelRatio'] ?? '';
  const completionText = form.values['CompletionRatio'] ?? '';
  const maps = useMemo((): PriceMaps | undefined => {
    const model = parseRatioText(modelText);
    const completion = parseRatioText(completionText);
    return model && completion ? { model, completion } : undefined;
  }, [modelText, completionText]);
  if (keys.length === 0) return null;

  /** Saves unless a group's limits are not whole numbers (the rows say which). */
  const save = () => {
    const rows = groupRows(
      form.values['GroupRatio'] ?? '',
      form.values['GroupRateLimits'] ?? '',
      form.values['GroupRoutingStrategies'] ?? '',
    );
    const invalid = invalidGroups(rows);
    if (invalid.length > 0) showError(t('groupLimits.invalidSave', { groups: invalid.join(', ') }));
    else form.save();
  };

  const field = (spec: FieldSpec) =>
    keys.includes(spec.key) && (
      <OptionField
        key={spec.key}
        field={spec}
        value={form.values[spec.key] ?? ''}
        onChange={(value) => form.set(spec.key, value)}
        error={form.failedKey === spec.key}
      />
    );

  return (
    <Stack gap="sm" className="option-section" data-testid="section-ratio">
      <Title order={4}>{t('options.section.ratio')}</Title>
      <Text size="sm" c="dimmed">
        {t('options.sectionHint.ratio')}
      </Text>
      {/* Both views stay in the page (hidden with display: none), so a field a refused save names is there. */}
      <Tabs
        value={view}
        onChange={(next) => setView(next === 'json' ? 'json' : 'table')}
        keepMounted
        keepMountedMode="display-none"
      >
        <Tabs.List>
          <Tabs.Tab value="table" data-testid="ratio-view-table">
            {t('ratioEditor.tabTable')}
          </Tabs.Tab>
          <Tabs.Tab value="json" data-testid="ratio-view-json">
            {t('ratioEditor.tabJson')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="table" pt="sm">
          <ModelPriceTable
            maps={maps}
            onChange={(next) => {
              form.set('ModelRatio', ratioText(next.model));
              form.set('CompletionRatio', ratioText(next.completion));
            }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="json" pt="sm">
          <Stack gap="sm">
            {field({ key: 'ModelRatio', placeholder: t('options.placeholder.ModelRatio') })}
            {field({ key: 'CompletionRatio', placeholder: t('options.placeholder.CompletionRatio') })}
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <Stack gap="sm">
        {field({ key: 'GroupRatio', placeholder: t('options.placeholder.GroupRatio') })}
        {keys.includes('GroupRateLimits') && (
          <GroupLimitsEditor
            ratioText={form.values['GroupRatio'] ?? ''}
            limitsText={form.values['GroupRateLimits'] ?? ''}
            strategiesText={form.values['GroupRoutingStrategies'] ?? ''}
            onLimitsChange={(text) => form.set('GroupRateLimits', text)}
            onStrategiesChange={
              keys.includes('GroupRoutingStrategies')
                ? (text) => form.set('GroupRoutingStrategies', text)
                : undefined
            }
            serverStrategy={serverStrategy}
          />
        )}
        {field({
          key: 'CacheReadRatio',
          placeholder: t('options.placeholder.CacheReadRatio'),
          description: t('options.hint.CacheReadRatio'),
        })}
        {field({
          key: 'CacheWriteRatio',
          placeholder: t('options.placeholder.CacheWriteRatio'),
          description: t('options.hint.CacheWriteRatio'),
        })}
      </Stack>
      <Box>
        <Group>
          <Button onClick={save} loading={form.saving} data-testid="save-ratio">
            {t('options.save')}
          </Button>
        </Group>
        <SaveRefused id="ratio" message={form.saveError} />
      </Box>
    </Stack>
  );
};
