import { useTranslation } from 'react-i18next';
import { OptionSection, OptionsTab } from '../options/option-section.js';
import { MonitorSection, QuotaSection } from '../options/shared-sections.js';
import { RatioSection } from '../ratio/ratio-section.js';

/** The operation settings tab (root): general, logging, monitoring, ratios, quota (spec §2). */
export const OperationSettings = () => {
  const { t } = useTranslation();
  return (
    <OptionsTab testId="operation-settings">
      {[
        <OptionSection
          key="general"
          id="general"
          title={t('options.section.general')}
          switches={[
            'DisplayInCurrencyEnabled',
            'DisplayTokenStatEnabled',
            'ApproximateTokenEnabled',
            'PricingPublic',
          ]}
          fields={[
            { key: 'TopUpLink', placeholder: t('options.placeholder.TopUpLink') },
            { key: 'ChatLink', placeholder: t('options.placeholder.ChatLink') },
            { key: 'QuotaPerUnit', step: 0.01, description: t('options.hint.QuotaPerUnit') },
            { key: 'RetryTimes', step: 1, description: t('options.hint.RetryTimes') },
          ]}
        />,
        <OptionSection
          key="logging"
          id="logging"
          title={t('options.section.logging')}
          description={t('options.sectionHint.logging')}
          switches={['LogConsumeEnabled']}
        />,
        <MonitorSection key="monitor" />,
        <RatioSection key="ratio" />,
        <QuotaSection key="quota" />,
      ]}
    </OptionsTab>
  );
};
