import { Button, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Asks for one text before a change: a current code (TOTP off, new recovery codes) or a passkey's
 * name. Test ids: `<testId>`, `<testId>-input`, `<testId>-submit`.
 */
export const PromptDialog = ({
  title,
  hint,
  label,
  placeholder,
  initial = '',
  oneTimeCode = false,
  testId,
  loading,
  onSubmit,
  onClose,
}: {
  title: string;
  hint?: string;
  label: string;
  placeholder?: string;
  initial?: string;
  /** The input takes a code from an authenticator app (the browser may fill it in). */
  oneTimeCode?: boolean;
  testId: string;
  loading: boolean;
  onSubmit: (value: string) => void;
  onClose: () => void;
}) => {
  const { t } = useTranslation();
  const [value, setValue] = useState(initial);
  return (
    <Modal opened onClose={onClose} title={title} data-testid={testId}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim() !== '') onSubmit(value.trim());
        }}
      >
        <Stack gap="sm">
          {hint && <Text size="sm">{hint}</Text>}
          <TextInput
            label={label}
            placeholder={placeholder}
            value={value}
            maxLength={64}
            onChange={(event) => setValue(event.currentTarget.value)}
            {...(oneTimeCode ? { autoComplete: 'one-time-code' } : {})}
            data-autofocus
            data-testid={`${testId}-input`}
          />
          <Button type="submit" loading={loading} data-testid={`${testId}-submit`}>
            {t('common.confirm')}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
};
