import { useTranslation } from 'react-i18next';
import { PlaceholderScreen } from '../../components/placeholder-screen.js';

/** Placeholder until the admin screens land (spec §2: create a user). */
export const UserAddPage = () => {
  const { t } = useTranslation();
  return <PlaceholderScreen title={t('nav.user')} />;
};
