import { useTranslation } from 'react-i18next';
import { OptionSection } from './option-section.js';

/**
 * Sections the spec lists on two tabs (operation, and again under other): monitoring, quota and
 * ratios (spec §2, §9; the ratios are `../ratio/ratio-section.tsx`). Both tabs edit the same options.
 */

export const MonitorSection = () => {
  const { t } = useTranslation();
  return (
    <OptionSection
      id="monitor"
      title={t('options.section.monitor')}
      switches={['AutomaticDisableChannelEnabled', 'AutomaticEnableChannelEnabled']}
      fields={[
        {
          key: 'ChannelDisableThreshold',
          step: 0.5,
          description: t('options.hint.ChannelDisableThreshold'),
        },
        { key: 'QuotaRemindThreshold', description: t('options.hint.QuotaRemindThreshold') },
        { key: 'ChannelBreakerFailures', description: t('options.hint.ChannelBreakerFailures') },
        { key: 'ChannelBreakerWindowSeconds', description: t('options.hint.ChannelBreakerWindowSeconds') },
        {
          key: 'ChannelBreakerCooldownSeconds',
          description: t('options.hint.ChannelBreakerCooldownSeconds'),
        },
      ]}
    />
  );
};

export const QuotaSection = () => {
  const { t } = useTranslation();
  return (
    <OptionSection
      id="quota"
      title={t('options.section.quota')}
      fields={[
        { key: 'QuotaForNewUser', description: t('options.hint.QuotaForNewUser') },
        { key: 'PreConsumedQuota', description: t('options.hint.PreConsumedQuota') },
        { key: 'QuotaForInviter', description: t('options.hint.QuotaForInviter') },
        { key: 'QuotaForInvitee', description: t('options.hint.QuotaForInvitee') },
      ]}
    />
  );
};
