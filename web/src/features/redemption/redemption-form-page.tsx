import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../components/placeholder-screen.js';

/** Placeholder until the admin screens land (spec §2: redemption form). */
export const RedemptionFormPage = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('nav.redemption')} />;
};
