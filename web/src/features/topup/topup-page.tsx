import { Alert, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconExternalLink, IconTicket } from '@tabler/icons-react';
import { userSchema, type User } from '@sluice/contract/schemas/user';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ListState } from '../../components/list-state.js';
import { api, BusinessError, HttpError } from '../../lib/api-client.js';
import { handleError } from '../../lib/error-handler.js';
import { serverText } from '../../lib/server-messages.js';
import { useQuotaFormatter } from '../../lib/format.js';
import { useStatus } from '../../lib/status.js';
import { showError } from '../../lib/toast.js';

/** The external top-up page with username, user_id and a fresh transaction_id appended (spec §2). */
export const topUpUrl = (
  link: string,
  user: Pick<User, 'id' | 'username'>,
  transactionId: string,
): string => {
  const url = new URL(link);
  url.searchParams.append('username', user.username);
  url.searchParams.append('user_id', String(user.id));
  url.searchParams.append('transaction_id', transactionId);
  return url.toString();
};

const newTransactionId = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `${Date.now()}-${Math.random().toString(16).slice(2)}`;

/** Top-up (spec §2): the current quota, redeem a code, open the external top-up page. */
export const TopUpPage = () => {
  const { t } = useTranslation();
  const formatQuota = useQuotaFormatter();
  const status = useStatus();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const self = useQuery({ queryKey: ['self'], queryFn: () => api.get('/api/user/self', userSchema) });
  // The outcome of a redemption shows under the button, not as a toast: toasts stacked by a few
  // tries covered the Redeem button itself.
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>();
  const redeem = useMutation({
    mutationFn: (key: string) => api.post('/api/user/topup', { key }, z.number()),
    meta: { silent: true },
    onMutate: () => setResult(undefined),
    onSuccess: async (quota) => {
      setResult({ ok: true, text: t('topup.redeemed', { amount: formatQuota(quota) }) });
      setCode('');
      await queryClient.invalidateQueries({ queryKey: ['self'] });
    },
    onError: (error) => {
      // An HTTP failure (401 → login, 429, 500…) goes to the one handler of spec §8.
      if (error instanceof HttpError) handleError(error);
      else
        setResult({
          ok: false,
          text: error instanceof BusinessError ? serverText(error.message, t) : t('topup.requestFailed'),
        });
    },
  });

  const openTopUpLink = () => {
    const link = status?.top_up_link ?? '';
    if (link === '') {
      showError(t('topup.noLink'));
      return;
    }
    if (!self.data) return;
    globalThis.open(topUpUrl(link, self.data, newTransactionId()), '_blank');
  };

  return (
    <Stack data-testid="topup-page">
      <Title order={3}>{t('topup.title')}</Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card>
          <Stack align="center" gap="md" py="md">
            <Text c="dimmed" size="sm">
              {t('topup.currentQuota')}
            </Text>
            <ListState loading={self.isPending} empty={false}>
              <Text fz={36} fw={700} c="indigo" data-testid="topup-quota">
                {self.data ? formatQuota(self.data.quota) : '—'}
              </Text>
            </ListState>
            <Button
              rightSection={<IconExternalLink size={16} />}
              onClick={openTopUpLink}
              w="80%"
              data-testid="topup-link"
            >
              {t('topup.buyCode')}
            </Button>
          </Stack>
        </Card>
        <Card>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (code.trim() === '') {
                setResult({ ok: false, text: t('topup.enterCode') });
                return;
              }
              redeem.mutate(code.trim());
            }}
          >
            <Stack gap="md" py="md">
              <Group gap="xs">
                <IconTicket size={20} />
                <Text fw={600}>{t('topup.redeemTitle')}</Text>
              </Group>
              <TextInput
                placeholder={t('topup.codePlaceholder')}
                aria-label={t('topup.codePlaceholder')}
                value={code}
                onChange={(event) => setCode(event.currentTarget.value)}
                name="redemption_code"
              />
              <Button type="submit" color="teal" loading={redeem.isPending} data-testid="topup-redeem">
                {t('topup.redeem')}
              </Button>
              {result && (
                <Alert
                  color={result.ok ? 'teal' : 'red'}
                  variant="light"
                  withCloseButton
                  onClose={() => setResult(undefined)}
                  data-testid="topup-result"
                >
                  {result.text}
                </Alert>
              )}
            </Stack>
          </form>
        </Card>
      </SimpleGrid>
    </Stack>
  );
};
