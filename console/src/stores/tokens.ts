/** The signed-in user's API keys. The plaintext key of a new key is returned to the caller, never kept. */

import type { CreatedToken, CreateTokenRequest, UpdateTokenRequest } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { createTokenApi, listTokensApi, revokeTokenApi, updateTokenApi } from '../api/tokens.ts';
import { useListLoader } from '../composables/use-list-loader.ts';

export const useTokensStore = defineStore('tokens', () => {
  const list = useListLoader(listTokensApi);

  async function createToken(input: CreateTokenRequest): Promise<CreatedToken> {
    const created = await createTokenApi(input);
    const { key: _key, ...view } = created;
    list.put(view);
    return created;
  }

  const updateToken = async (id: string, input: UpdateTokenRequest) => list.put(await updateTokenApi(id, input));
  const renameToken = async (id: string, name: string) => list.put(await updateTokenApi(id, { name }));
  const setTokenEnabled = async (id: string, enabled: boolean) => list.put(await updateTokenApi(id, { enabled }));
  const revokeToken = async (id: string) => list.put(await revokeTokenApi(id));

  return {
    tokens: list.items,
    loading: list.loading,
    loaded: list.loaded,
    error: list.error,
    fetchTokens: list.fetch,
    createToken,
    updateToken,
    renameToken,
    setTokenEnabled,
    revokeToken,
    $reset: list.reset,
  };
});
