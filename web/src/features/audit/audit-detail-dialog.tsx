import { Code, Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import type { AuditRow } from '@sluice/contract/schemas/audit';
import { useTranslation } from 'react-i18next';
import { parseJson } from '@sluice/contract/parse-json';

/** A before/after text of a row, indented; '' for none. */
export const prettyFields = (text: string | null): string => {
  if (text === null) return '';
  const value = parseJson(text);
  return value === undefined ? text : JSON.stringify(value, null, 2);
};

const Fields = ({ label, text, testId }: { label: string; text: string | null; testId: string }) => {
  const { t } = useTranslation();
  const pretty = prettyFields(text);
  return (
    <Stack gap={4} miw={0}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      {pretty === '' ? (
        <Text size="sm" c="dimmed" data-testid={testId}>
          {t('audit.nothing')}
        </Text>
      ) : (
        <Code block data-testid={testId} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {pretty}
        </Code>
      )}
    </Stack>
  );
};

/** The fields of one audit row before and after the change (side by side; stacked on a phone). */
export const AuditDetailDialog = ({ row, onClose }: { row: AuditRow | undefined; onClose: () => void }) => {
  const { t } = useTranslation();
  return (
    <Modal
      opened={row !== undefined}
      onClose={onClose}
      size="xl"
      title={row ? t('audit.detailTitle', { id: row.id }) : ''}
      data-testid="audit-detail"
    >
      {row && (
        <Stack gap="sm">
          {row.detail !== '' && <Text size="sm">{row.detail}</Text>}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <Fields label={t('audit.before')} text={row.before} testId="audit-before" />
            <Fields label={t('audit.after')} text={row.after} testId="audit-after" />
          </SimpleGrid>
        </Stack>
      )}
    </Modal>
  );
};
