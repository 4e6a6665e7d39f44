import { Alert, Box, Button, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { mayChangeOption } from '@sluice/contract/option-access';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ListState } from '../../../components/list-state.js';
import { useSession } from '../../../lib/session.js';
import { OptionField, type FieldKey, type FieldSpec } from './option-fields.js';
import { OptionSwitch } from './option-switch.js';
import { useOptionForm, useOptions } from './use-options.js';

/** Whether the signed-in user may change an option (`@sluice/contract/option-access`). */
export const useMayChangeOption = (): ((key: string) => boolean) => {
  const role = useSession().user?.role ?? 0;
  return (key) => mayChangeOption(key, role);
};

/**
 * Why a section's save was refused, under its button: nothing of the section was stored (a save is
 * all or nothing), and the server's message names the option and the entry at fault.
 */
export const SaveRefused = ({ id, message }: { id: string; message: string | undefined }) => {
  const { t } = useTranslation();
  if (message === undefined) return null;
  return (
    <Alert color="red" variant="light" mt="sm" data-testid={`save-refused-${id}`}>
      {t('options.saveRefused', { message })}
    </Alert>
  );
};

/**
 * One section of an admin settings tab: its switches (saved when switched) and its fields (saved
 * together by the section's button, changed values only, all or nothing). Only the options the user
 * may change are shown (root's alone are hidden from an administrator); a section left empty is not
 * shown.
 */
export const OptionSection = ({
  id,
  title,
  description,
  fields: allFields = [],
  switches: allSwitches = [],
  cols = 2,
  saveLabel,
  children,
}: {
  id: string;
  title: ReactNode;
  description?: ReactNode;
  fields?: readonly FieldSpec[];
  switches?: readonly FieldKey[];
  cols?: number;
  saveLabel?: ReactNode;
  children?: ReactNode;
}) => {
  const { t } = useTranslation();
  const mayChange = useMayChangeOption();
  const fields = allFields.filter((field) => mayChange(field.key));
  const switches = allSwitches.filter(mayChange);
  const form = useOptionForm(fields.map((field) => field.key));
  if (fields.length === 0 && switches.length === 0 && children === undefined) return null;
  return (
    <Stack gap="sm" className="option-section" data-testid={`section-${id}`}>
      <Title order={4}>{title}</Title>
      {description && (
        <Text size="sm" c="dimmed">
          {description}
        </Text>
      )}
      {switches.length > 0 && (
        <Group gap="lg">
          {switches.map((key) => (
            <OptionSwitch key={key} optionKey={key} />
          ))}
        </Group>
      )}
      {children}
      {fields.length > 0 && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            form.save();
          }}
        >
          <SimpleGrid cols={{ base: 1, sm: cols }} spacing="sm" verticalSpacing="sm">
            {fields.map((field) => (
              <Box key={field.key} style={field.wide ? { gridColumn: '1 / -1' } : undefined}>
                <OptionField
                  field={field}
                  value={form.values[field.key] ?? ''}
                  onChange={(value) => form.set(field.key, value)}
                  error={form.failedKey === field.key}
                />
              </Box>
            ))}
          </SimpleGrid>
          <Group mt="sm">
            <Button type="submit" loading={form.saving} data-testid={`save-${id}`}>
              {saveLabel ?? t('options.save')}
            </Button>
          </Group>
          <SaveRefused id={id} message={form.saveError} />
        </form>
      )}
    </Stack>
  );
};

/**
 * A tab of option sections: a loader until the options arrive, then the sections, a rule between
 * two (a section the user may not change renders nothing, and no rule).
 */
export const OptionsTab = ({ testId, children }: { testId: string; children: readonly ReactNode[] }) => {
  const options = useOptions();
  return (
    <ListState loading={options.isPending} empty={false}>
      <Stack gap="lg" data-testid={testId}>
        {children}
      </Stack>
    </ListState>
  );
};
