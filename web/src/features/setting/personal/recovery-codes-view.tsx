import { Button, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconCopy, IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { downloadText } from '../../../lib/api-client.js';
import { copyWithToast } from '../../../lib/clipboard.js';

/** Recovery codes shown once: in two columns, with copy and download (recovery-codes.txt). */
export const RecoveryCodesView = ({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) => {
  const { t } = useTranslation();
  const text = codes.join('\n');
  return (
    <Stack gap="sm" data-testid="recovery-codes">
      <Text size="sm">{t('twoFactor.codesHint')}</Text>
      <SimpleGrid cols={2} spacing="xs">
        {codes.map((code) => (
          <Text key={code} ff="monospace" size="sm" data-testid="recovery-code">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="xs">
        <Button
          variant="light"
          leftSection={<IconCopy size={16} />}
          onClick={() =>
            void copyWithToast(text, {
              success: t('twoFactor.codesCopied'),
              manual: t('common.copyManuallyBelow'),
            })
          }
        >
          {t('twoFactor.copyCodes')}
        </Button>
        <Button
          variant="light"
          leftSection={<IconDownload size={16} />}
          onClick={() => downloadText(`${text}\n`, 'recovery-codes.txt')}
        >
          {t('twoFactor.downloadCodes')}
        </Button>
        <Button onClick={onDone} data-testid="recovery-codes-done">
          {t('twoFactor.done')}
        </Button>
      </Group>
    </Stack>
  );
};
