import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../components/placeholder-screen.js';

/** Placeholder until the admin screens land (spec §2: usage charts). */
export const DashboardPage = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('nav.dashboard')} />;
};
