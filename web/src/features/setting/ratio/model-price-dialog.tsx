import { Button, Group, Modal, NumberInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatRatio, formatUsd, rowPrices } from './model-price-model.js';

export interface RowEntries {
  readonly modelRatio: number | undefined;
  readonly completionRatio: number | undefined;
}

/** A NumberInput's value as a ratio: empty is none. */
const ratioOf = (value: string | number): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const number = Number(value);
  return value.trim() === '' || !Number.isFinite(number) ? undefined : number;
};

/**
 * One row's prices: its model ratio and completion ratio (empty: none, the rule decides), with the
 * dollar prices they give, live. Apply changes the form only; the section's Save stores it.
 */
export const ModelPriceDialog = ({
  model,
  initial,
  ruleCompletion,
  onApply,
  onClose,
}: {
  model: string;
  initial: RowEntries;
  ruleCompletion: number;
  onApply: (entries: RowEntries) => void;
  onClose: () => void;
}) => {
  const { t } = useTranslation();
  const [modelRatio, setModelRatio] = useState<string | number>(initial.modelRatio ?? '');
  const [completionRatio, setCompletionRatio] = useState<string | number>(initial.completionRatio ?? '');
  const entries: RowEntries = { modelRatio: ratioOf(modelRatio), completionRatio: ratioOf(completionRatio) };
  const prices = rowPrices(entries.modelRatio, entries.completionRatio ?? ruleCompletion);
  const rule = formatRatio(ruleCompletion);
  return (
    <Modal opened onClose={onClose} title={t('ratioEditor.dialog.title', { model })} centered>
      <Stack gap="sm" data-testid="price-dialog">
        <NumberInput
          label={t('ratioEditor.dialog.modelRatio')}
          description={t('ratioEditor.dialog.modelRatioHint')}
          value={modelRatio}
          onChange={setModelRatio}
          min={0}
          decimalScale={10}
          allowNegative={false}
          data-autofocus
          data-testid="price-model-ratio"
        />
        <NumberInput
          label={t('ratioEditor.dialog.completionRatio')}
          description={t('ratioEditor.dialog.completionRatioHint', { ratio: rule })}
          placeholder={t('ratioEditor.rule', { ratio: rule })}
          value={completionRatio}
          onChange={setCompletionRatio}
          min={0}
          decimalScale={10}
          allowNegative={false}
          data-testid="price-completion-ratio"
        />
        <Text size="sm" fw={500} data-testid="price-preview">
          {prices
            ? t('ratioEditor.dialog.prices', {
                input: formatUsd(prices.input),
                output: formatUsd(prices.output),
              })
            : t('ratioEditor.dialog.noPrice')}
        </Text>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} data-testid="price-cancel">
            {t('common.cancel')}
          </Button>
          <Button onClick={() => onApply(entries)} data-testid="price-apply">
            {t('ratioEditor.dialog.apply')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
};
