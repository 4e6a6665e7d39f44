import { Box, EmptyState } from '@mantine/core';
import { IconMessageOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useBranding } from '../../lib/status.js';

/** Chat (spec §2): the configured chat link in an iframe. */
export const ChatPage = () => {
  const { t } = useTranslation();
  const { chatLink } = useBranding();
  if (chatLink === '')
    return (
      <EmptyState
        py={60}
        icon={<IconMessageOff size={28} stroke={1.4} />}
        withIndicatorBackground
        title={t('chat.noLink')}
        description={t('chat.noLinkHint')}
      />
    );
  return (
    <Box
      component="iframe"
      src={chatLink}
      title={t('nav.chat')}
      w="100%"
      h="calc(100dvh - 140px)"
      style={{ border: 'none', borderRadius: 'var(--mantine-radius-md)' }}
      data-testid="chat-iframe"
    />
  );
};
