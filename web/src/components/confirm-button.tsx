import { Button, Popover, Stack, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A button that asks before acting (delete, cleanup): a popover with the question and a confirm. */
export const ConfirmButton = ({
  label,
  question,
  onConfirm,
  loading,
  color = 'red',
  ...buttonProps
}: {
  label: ReactNode;
  question: ReactNode;
  onConfirm: () => void;
  loading?: boolean;
} & Omit<ButtonProps, 'children' | 'onClick'>) => {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  return (
    <Popover opened={opened} onChange={setOpened} withArrow shadow="md" position="bottom-end">
      <Popover.Target>
        <Button color={color} loading={loading} onClick={() => setOpened((open) => !open)} {...buttonProps}>
          {label}
        </Button>
      </Popover.Target>
      <Popover.Dropdown maw={280}>
        <Stack gap="xs">
          <Text size="sm">{question}</Text>
          <Button
            color={color}
            size="xs"
            onClick={() => {
              setOpened(false);
              onConfirm();
            }}
            data-testid="confirm"
          >
            {t('common.confirm')}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
};
