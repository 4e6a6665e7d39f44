import { Anchor, Box, Text } from '@mantine/core';
import { Trans } from 'react-i18next';
import { sanitizeHtml } from '../lib/sanitize-html.js';
import { useStatus, useBranding } from '../lib/status.js';

/** Spec §2: the configured footer HTML (sanitised), else a default credit line with a licence note. */
export const Footer = () => {
  const branding = useBranding();
  const status = useStatus();
  return (
    <Box component="footer" py="lg" mt="xl" ta="center" c="dimmed" fz="sm" data-testid="footer">
      {branding.footerHtml !== '' ? (
        <div
          className="html-content"
          dangerouslySetInnerHTML={{ __html: sanitizeHtml(branding.footerHtml) }}
        />
      ) : (
        <Text inherit>
          <Trans
            i18nKey="footer.credit"
            values={{ name: branding.systemName, version: status?.version ?? '' }}
            components={{
              oneapi: <Anchor href="https://github.com/songquanpeng/one-api" target="_blank" inherit />,
            }}
          />
        </Text>
      )}
    </Box>
  );
};
