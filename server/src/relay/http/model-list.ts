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

/** GET /v1/models: the key's allow-list if it has one, else what the user's group may use. */
export const modelList = async (index: RelayIndex, auth: KeyAuth) => {
  const allowed = (auth.token.models ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const names = allowed.length > 0 ? allowed : await index.groupModels(auth.user.group || 'default');
  return { object: 'list', data: names.map((name) => objectOf(name, OWNERS.get(name) ?? 'custom')) };
};
