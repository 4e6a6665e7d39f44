import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../../components/placeholder-screen.js';

/** The system settings tab (admin; built with the admin screens). */
export const SystemSettings = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('setting.tabs.system')} />;
};
