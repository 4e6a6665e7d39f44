import { Button, Group, Stack, TagsInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChannelModels } from '../../lib/channel-models.js';

/** The default models of a type (GET /api/models), in catalogue order. */
export const typeModels = (catalogue: ChannelModels | undefined, type: number): string[] =>
  catalogue?.[String(type)] ?? [];

/** Every model of every type, without duplicates, sorted. */
export const allModels = (catalogue: ChannelModels | undefined): string[] =>
  [...new Set(Object.values(catalogue ?? {}).flat())].sort((a, b) => a.localeCompare(b));

/**
 * The channel's models: picked from the type's models or typed (custom entries), with buttons to
 * fill in the type's models or every model, and to clear the list.
 */
export const ModelsField = ({
  type,
  value,
  onChange,
  catalogue,
}: {
  type: number;
  value: string[];
  onChange: (models: string[]) => void;
  catalogue: ChannelModels | undefined;
}) => {
  const { t } = useTranslation();
  const options = [...new Set([...typeModels(catalogue, type), ...value])];
  return (
    <Stack gap={6}>
      <TagsInput
        label={t('channel.form.models')}
        description={t('channel.form.modelsHint')}
        placeholder={t('channel.form.modelsPlaceholder')}
        required
        data={options}
        value={value}
        onChange={(models) => onChange([...new Set(models.map((model) => model.trim()).filter(Boolean))])}
        clearable
        acceptValueOnBlur
        maxDropdownHeight={260}
        comboboxProps={{ withinPortal: true }}
        data-testid="channel-models"
      />
      <Group gap="xs">
        <Button
          size="compact-sm"
          variant="default"
          onClick={() => onChange(typeModels(catalogue, type))}
          data-testid="channel-fill-type-models"
        >
          {t('channel.form.fillTypeModels')}
        </Button>
        <Button
          size="compact-sm"
          variant="default"
          onClick={() => onChange(allModels(catalogue))}
          data-testid="channel-fill-all-models"
        >
          {t('channel.form.fillAllModels')}
        </Button>
        <Button
          size="compact-sm"
          variant="default"
          color="red"
          onClick={() => onChange([])}
          data-testid="channel-clear-models"
        >
          {t('channel.form.clearModels')}
        </Button>
      </Group>
    </Stack>
  );
};
