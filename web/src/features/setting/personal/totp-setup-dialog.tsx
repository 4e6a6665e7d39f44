import { Button, Code, Image, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RecoveryCodesView } from './recovery-codes-view.js';
import { enableTotp, startTotpSetup, svgDataUrl } from './two-factor-api.js';

/**
 * Turning TOTP on: a new secret as a QR code and as text, the first code from the app to confirm it,
 * then the recovery codes (shown once).
 */
export const TotpSetupDialog = ({ onClose }: { onClose: (changed: boolean) => void }) => {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const setup = useQuery({
    queryKey: ['2fa', 'setup'],
    queryFn: startTotpSetup,
    gcTime: 0,
    staleTime: Infinity,
  });
  const enable = useMutation({ mutationFn: enableTotp });
  const codes = enable.data;
  return (
    <Modal
      opened
      onClose={() => onClose(codes !== undefined)}
      title={codes ? t('twoFactor.codesTitle') : t('twoFactor.setupTitle')}
      data-testid="totp-setup"
    >
      {codes ? (
        <RecoveryCodesView codes={codes} onDone={() => onClose(true)} />
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (code.trim() !== '') enable.mutate(code.trim());
          }}
        >
          <Stack gap="sm">
            <Text size="sm">{t('twoFactor.scan')}</Text>
            {setup.data && (
              <>
                <Image
                  src={svgDataUrl(setup.data.qr_svg)}
                  alt={t('twoFactor.qrAlt')}
                  w={200}
                  h={200}
                  mx="auto"
                  data-testid="totp-qr"
                />
                <Stack gap={2}>
                  <Text size="xs" c="dimmed">
                    {t('twoFactor.secret')}
                  </Text>
                  <Code style={{ overflowWrap: 'anywhere' }} data-testid="totp-secret">
                    {setup.data.secret}
                  </Code>
                </Stack>
              </>
            )}
            <TextInput
              label={t('twoFactor.code')}
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
              autoComplete="one-time-code"
              inputMode="numeric"
              data-testid="totp-code"
            />
            <Button type="submit" loading={enable.isPending} disabled={!setup.data} data-testid="totp-enable">
              {t('twoFactor.confirm')}
            </Button>
          </Stack>
        </form>
      )}
    </Modal>
  );
};
