import { fetchGitHubUser } from '../integrations/github.js';
import { fetchLarkUser } from '../integrations/lark.js';
import { fetchWeChatId } from '../integrations/wechat.js';
import { businessError } from '../lib/app-error.js';
import { serverAddressOf } from './account-mail-service.js';
import type { ServiceDeps } from './service-deps.js';

export type OAuthProvider = 'github' | 'lark' | 'wechat';

/** An account at a provider, as Sluice stores and names it. */
export interface ExternalAccount {
  readonly id: string;
  readonly displayName: string;
  readonly email: string;
}

/** The table of providers: the users column holding the id, new-user naming, messages. */
export const OAUTH_PROVIDERS = {
  github: {
    column: 'github_id',
    usernamePrefix: 'github_',
    defaultDisplayName: 'GitHub User',
    alreadyBound: 'this GitHub account is already bound',
  },
  lark: {
    column: 'lark_id',
    usernamePrefix: 'lark_',
    defaultDisplayName: 'Lark User',
    alreadyBound: 'this Lark account is already bound',
  },
  wechat: {
    column: 'wechat_id',
    usernamePrefix: 'wechat_',
    defaultDisplayName: 'WeChat User',
    alreadyBound: 'this WeChat account is already bound',
  },
} as const satisfies Record<
  OAuthProvider,
  {
    column: 'github_id' | 'lark_id' | 'wechat_id';
    usernamePrefix: string;
    defaultDisplayName: string;
    alreadyBound: string;
  }
>;

/**
 * Resolves a provider's code into the account behind it, refusing first when the administrator has not
 * turned the provider on (the code is then never sent anywhere).
 */
export const fetchExternalAccount = async (
  deps: ServiceDeps,
  provider: OAuthProvider,
  code: string,
): Promise<ExternalAccount> => {
  const values = deps.options.values;
  const { config } = deps;
  switch (provider) {
    case 'github': {
      if (!values.GitHubOAuthEnabled)
        throw businessError('the administrator has not enabled login and registration with GitHub');
      const user = await fetchGitHubUser(
        { oauthUrl: config.githubOAuthUrl, apiUrl: config.githubApiUrl },
        { clientId: values.GitHubClientId, clientSecret: values.GitHubClientSecret },
        code,
      );
      return { id: user.login, displayName: user.name, email: user.email };
    }
    case 'lark': {
      if (values.LarkClientId.trim() === '')
        throw businessError('the administrator has not enabled login and registration with Lark');
      const user = await fetchLarkUser(
        { openUrl: config.larkOpenUrl, passportUrl: config.larkPassportUrl },
        {
          clientId: values.LarkClientId,
          clientSecret: values.LarkClientSecret,
          redirectUri: `${serverAddressOf(deps)}/oauth/lark`,
        },
        code,
      );
      return { id: user.openId, displayName: user.name, email: '' };
    }
    case 'wechat': {
      if (!values.WeChatAuthEnabled)
        throw businessError('the administrator has not enabled login and registration with WeChat');
      const id = await fetchWeChatId(
        { address: values.WeChatServerAddress, token: values.WeChatServerToken },
        code,
      );
      return { id, displayName: '', email: '' };
    }
  }
};
