import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../../components/placeholder-screen.js';

/** The other settings tab (admin; built with the admin screens). */
export const OtherSettings = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('setting.tabs.other')} />;
};
