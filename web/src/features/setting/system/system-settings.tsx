import { useTranslation } from 'react-i18next';
import { serverAddress } from '../../../lib/status.js';
import { OptionSection, OptionsTab } from '../options/option-section.js';
import { WhitelistSection } from './whitelist-section.js';

/**
 * The system settings tab (root), sections of spec §2: server address; login and registration
 * switches; email domain whitelist; SMTP; GitHub OAuth; Lark OAuth; WeChat login server; message
 * pusher; Turnstile; OpenID Connect; account security (administrators' second factor, the audit log's retention). Secret fields are never pre-filled and are saved only when typed.
 */
export const SystemSettings = () => {
  const { t } = useTranslation();
  const server = serverAddress();
  return (
    <OptionsTab testId="system-settings">
      {[
        <OptionSection
          key="server"
          id="server"
          title={t('options.section.server')}
          cols={1}
          saveLabel={t('options.saveServerAddress')}
          fields={[
            {
              key: 'ServerAddress',
              placeholder: t('options.placeholder.ServerAddress'),
              description: t('options.hint.ServerAddress'),
            },
          ]}
        />,
        <OptionSection
          key="login"
          id="login"
          title={t('options.section.login')}
          switches={[
            'PasswordLoginEnabled',
            'PasswordRegisterEnabled',
            'EmailVerificationEnabled',
            'GitHubOAuthEnabled',
            'WeChatAuthEnabled',
            'RegisterEnabled',
            'TurnstileCheckEnabled',
          ]}
        />,
        <WhitelistSection key="whitelist" />,
        <OptionSection
          key="smtp"
          id="smtp"
          title={t('options.section.smtp')}
          description={t('options.sectionHint.smtp')}
          cols={3}
          fields={[
            { key: 'SMTPServer', placeholder: t('options.placeholder.SMTPServer') },
            { key: 'SMTPPort', placeholder: t('options.placeholder.SMTPPort') },
            { key: 'SMTPAccount', placeholder: t('options.placeholder.SMTPAccount') },
            { key: 'SMTPFrom', placeholder: t('options.placeholder.SMTPFrom') },
            { key: 'SMTPToken' },
          ]}
        />,
        <OptionSection
          key="github"
          id="github"
          title={t('options.section.github')}
          description={t('options.sectionHint.github', { server })}
          fields={[{ key: 'GitHubClientId' }, { key: 'GitHubClientSecret' }]}
        />,
        <OptionSection
          key="lark"
          id="lark"
          title={t('options.section.lark')}
          description={t('options.sectionHint.lark', { server })}
          fields={[{ key: 'LarkClientId' }, { key: 'LarkClientSecret' }]}
        />,
        <OptionSection
          key="wechat"
          id="wechat"
          title={t('options.section.wechat')}
          description={t('options.sectionHint.wechat')}
          cols={3}
          fields={[
            { key: 'WeChatServerAddress', placeholder: t('options.placeholder.WeChatServerAddress') },
            { key: 'WeChatServerToken' },
            { key: 'WeChatAccountQRCodeImageURL' },
          ]}
        />,
        <OptionSection
          key="pusher"
          id="pusher"
          title={t('options.section.pusher')}
          description={t('options.sectionHint.pusher')}
          fields={[
            { key: 'MessagePusherAddress', placeholder: t('options.placeholder.MessagePusherAddress') },
            { key: 'MessagePusherToken' },
          ]}
        />,
        <OptionSection
          key="turnstile"
          id="turnstile"
          title={t('options.section.turnstile')}
          description={t('options.sectionHint.turnstile')}
          fields={[{ key: 'TurnstileSiteKey' }, { key: 'TurnstileSecretKey' }]}
        />,
        <OptionSection
          key="oidc"
          id="oidc"
          title={t('options.section.oidc')}
          description={t('options.sectionHint.oidc', { server })}
          switches={['OidcEnabled', 'OidcRegisterEnabled']}
          fields={[
            { key: 'OidcWellKnown', placeholder: t('options.placeholder.OidcWellKnown'), wide: true },
            { key: 'OidcClientId' },
            { key: 'OidcClientSecret' },
            { key: 'OidcScopes' },
            { key: 'OidcUsernameClaim' },
            { key: 'OidcAllowedDomains', placeholder: t('options.placeholder.OidcAllowedDomains') },
            { key: 'OidcGroupClaim', placeholder: t('options.placeholder.OidcGroupClaim') },
            {
              key: 'OidcGroupMapping',
              multiline: true,
              wide: true,
              placeholder: t('options.placeholder.OidcGroupMapping'),
              description: t('options.hint.OidcGroupMapping'),
            },
          ]}
        />,
        <OptionSection
          key="security"
          id="security"
          title={t('options.section.security')}
          description={t('options.sectionHint.security')}
          switches={['TwoFactorRequiredForAdmins']}
          fields={[
            {
              key: 'AuditLogRetentionDays',
              description: t('options.hint.AuditLogRetentionDays'),
            },
          ]}
        />,
      ]}
    </OptionsTab>
  );
};
