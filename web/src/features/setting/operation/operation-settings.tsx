import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../../components/placeholder-screen.js';

/** The operation settings tab (admin; built with the admin screens). */
export const OperationSettings = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('setting.tabs.operation')} />;
};
