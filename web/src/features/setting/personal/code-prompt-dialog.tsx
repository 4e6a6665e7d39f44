import { Button, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Asks for a current code (or a recovery code) before a change to the second factor. */
export const CodePromptDialog = ({
  title,
  loading,
  onSubmit,
  onClose,
}: {
  title: string;
  loading: boolean;
  onSubmit: (code: string) => void;
  onClose: () => void;
}) => {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  return (
    <Modal opened onClose={onClose} title={title} data-testid="code-prompt">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim() !== '') onSubmit(code.trim());
        }}
      >
        <Stack gap="sm">
          <Text size="sm">{t('twoFactor.confirmCodeHint')}</Text>
          <TextInput
            label={t('twoFactor.code')}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
            autoComplete="one-time-code"
            data-testid="code-prompt-input"
          />
          <Button type="submit" loading={loading} data-testid="code-prompt-submit">
            {t('common.confirm')}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
};
