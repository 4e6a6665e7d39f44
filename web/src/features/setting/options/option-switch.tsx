import { Button, Group, Modal, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FieldKey } from './option-fields.js';
import { useOptions, useSaveOptions } from './use-options.js';

/**
 * A boolean option, saved as soon as it is switched (as one-api does). Turning off password login
 * asks for confirmation first (spec §4).
 */
export const OptionSwitch = ({ optionKey }: { optionKey: FieldKey }) => {
  const { t } = useTranslation();
  const options = useOptions();
  const save = useSaveOptions();
  const [confirming, setConfirming] = useState(false);
  const stored = options.data?.[optionKey] === 'true';
  const checked = save.isPending ? save.variables[0]?.value === 'true' : stored;
  const apply = (next: boolean) => save.mutate([{ key: optionKey, value: String(next) }]);
  const asksFirst = optionKey === 'PasswordLoginEnabled';

  return (
    <>
      <Switch
        label={t(`options.field.${optionKey}`)}
        checked={checked}
        disabled={options.isPending || save.isPending}
        onChange={(event) => {
          const next = event.currentTarget.checked;
          if (!next && asksFirst) setConfirming(true);
          else apply(next);
        }}
        data-testid={`option-${optionKey}`}
      />
      {asksFirst && (
        <Modal
          opened={confirming}
          onClose={() => setConfirming(false)}
          title={t('options.passwordLoginOff.title')}
          centered
        >
          <Text size="sm">{t('options.passwordLoginOff.warning')}</Text>
          <Group justify="flex-end" mt="md">
            <Button
              variant="default"
              onClick={() => setConfirming(false)}
              data-testid="password-login-cancel"
            >
              {t('common.cancel')}
            </Button>
            <Button
              color="yellow"
              onClick={() => {
                setConfirming(false);
                apply(false);
              }}
              data-testid="password-login-confirm"
            >
              {t('common.confirm')}
            </Button>
          </Group>
        </Modal>
      )}
    </>
  );
};
