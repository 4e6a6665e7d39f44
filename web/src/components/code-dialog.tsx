import { Button, Image, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The chat-app (WeChat) dialog: the official account's QR code and a code entry. Used to log in and
 * to bind; `onSubmit` gets the trimmed code (an empty code does nothing, spec §5).
 */
export const CodeDialog = ({
  opened,
  onClose,
  title,
  qrCode,
  hint,
  submitLabel,
  onSubmit,
  loading,
}: {
  opened: boolean;
  onClose: () => void;
  title: ReactNode;
  qrCode: string;
  hint: ReactNode;
  submitLabel: ReactNode;
  onSubmit: (code: string) => void;
  loading?: boolean;
}) => {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim() !== '') onSubmit(code.trim());
        }}
      >
        <Stack>
          {qrCode !== '' && <Image src={qrCode} alt={t('auth.wechatQrAlt')} maw={220} mx="auto" />}
          <Text size="sm" c="dimmed" ta="center">
            {hint}
          </Text>
          <TextInput
            label={t('auth.verificationCode')}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
            data-testid="code-input"
          />
          <Button type="submit" loading={loading}>
            {submitLabel}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
};
