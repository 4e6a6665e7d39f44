import { anthropicModelList } from '../clients/anthropic/index.js';
import { PROVIDERS } from '../providers/registry.js';
import type { KeyAuth } from '../request/key-auth.js';
import type { RelayIndex } from '../routing/relay-index.js';

const CREATED = 1626777600;

/** model name → owner, for every built-in model of every provider (the lowest type id wins). */
const OWNERS: ReadonlyMap<string, string> = (() => {
  const owners = new Map<string, string>();
  for (const provider of Object.values(PROVIDERS))
    for (const model of provider.models) if (!owners.has(model)) owners.set(model, provider.owner);
  return owners;
})();

const objectOf = (id: string, ownedBy: string) => ({
  id,
  object: 'model',
  created: CREATED,
  owned_by: ownedBy,
  permission: [
    {
      id: `modelperm-${id}`,
      object: 'model_permission',
      created: CREATED,
      allow_create_engine: true,
      allow_sampling: true,
      allow_logprobs: true,
      allow_search_indices: false,
      allow_view: true,
      allow_fine_tuning: false,
      organization: '*',
      group: null,
      is_blocking: false,
    },
  ],
  root: id,
  parent: null,
});

/** The built-in model object, or undefined for a name no provider lists. */
export const modelObject = (id: string) => {
  const owner = OWNERS.get(id);
  return owner === undefined ? undefined : objectOf(id, owner);
};

/** The models a key may use: its allow-list if it has one, else what the user's group may use. */
export const keyModels = async (index: RelayIndex, auth: KeyAuth): Promise<readonly string[]> => {
  const allowed = (auth.token.models ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return allowed.length > 0 ? allowed : index.groupModels(auth.user.group || 'default');
};

/** GET /v1/models in OpenAI's shape. */
export const modelList = async (index: RelayIndex, auth: KeyAuth) => {
  const names = await keyModels(index, auth);
  return { object: 'list', data: names.map((name) => objectOf(name, OWNERS.get(name) ?? 'custom')) };
};

/** GET /v1/models in Anthropic's shape (asked with `anthropic-version`). */
export const anthropicModels = async (index: RelayIndex, auth: KeyAuth) =>
  anthropicModelList((await keyModels(index, auth)).map((id) => ({ id, created: CREATED })));
