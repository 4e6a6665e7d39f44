import { useTranslation } from 'react-i18next';
import { OptionSection, OptionsTab } from '../options/option-section.js';
import { MonitorSection, QuotaSection } from '../options/shared-sections.js';
import { RatioSection } from '../ratio/ratio-section.js';
import { HistoryCleanupSection } from './history-cleanup-section.js';
import { UpdateCheck } from './update-check.js';

/**
 * The other settings tab (root), spec §2: personalisation (notice, system name, theme, logo, home
 * page content, about, footer, check for update), then clearing history logs, monitor, quota and
 * ratio settings.
 */
export const OtherSettings = () => {
  const { t } = useTranslation();
  return (
    <OptionsTab testId="other-settings">
      {[
        <OptionSection
          key="personalisation"
          id="personalisation"
          title={t('options.section.personalisation')}
          fields={[
            { key: 'SystemName', placeholder: t('options.placeholder.SystemName') },
            { key: 'Theme', description: t('options.hint.Theme') },
            { key: 'Logo', placeholder: t('options.placeholder.Logo'), wide: true },
            { key: 'Notice', multiline: true, wide: true, description: t('options.hint.Notice') },
            {
              key: 'HomePageContent',
              multiline: true,
              wide: true,
              description: t('options.hint.HomePageContent'),
            },
            { key: 'About', multiline: true, wide: true, description: t('options.hint.About') },
            { key: 'Footer', multiline: true, wide: true, description: t('options.hint.Footer') },
          ]}
        >
          <UpdateCheck />
        </OptionSection>,
        <HistoryCleanupSection key="cleanup" />,
        <MonitorSection key="monitor" />,
        <QuotaSection key="quota" />,
        <RatioSection key="ratio" />,
      ]}
    </OptionsTab>
  );
};
