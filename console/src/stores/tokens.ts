/** The signed-in user's API keys. The plaintext key of a new key is returned to the caller, never kept. */

import type { CreatedToken, CreateTokenRequest, TokenView, UpdateTokenRequest } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { createTokenApi, listTokensApi, revokeTokenApi, updateTokenApi } from '../api/tokens.ts';

export const useTokensStore = defineStore('tokens', () => {
  const tokens = ref<TokenView[]>([]);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<Error | null>(null);

  function replace(updated: TokenView): TokenView {
    tokens.value = tokens.value.map((token) => (token.id === updated.id ? updated : token));
    return updated;
  }

  async function fetchTokens(): Promise<void> {
    loading.value = true;
    error.value = null;
    try {
      tokens.value = (await listTokensApi()).items;
      loaded.value = true;
    } catch (caught) {
      error.value = caught as Error;
    } finally {
      loading.value = false;
    }
  }

  async function createToken(input: CreateTokenRequest): Promise<CreatedToken> {
    const created = await createTokenApi(input);
    const { key: _key, ...view } = created;
    tokens.value = [view, ...tokens.value];
    return created;
  }

  const updateToken = async (id: string, input: UpdateTokenRequest) => replace(await updateTokenApi(id, input));
  const renameToken = async (id: string, name: string) => replace(await updateTokenApi(id, { name }));
  const setTokenEnabled = async (id: string, enabled: boolean) => replace(await updateTokenApi(id, { enabled }));
  const revokeToken = async (id: string) => replace(await revokeTokenApi(id));

  function $reset(): void {
    tokens.value = [];
    loading.value = false;
    loaded.value = false;
    error.value = null;
  }

  return {
    tokens,
    loading,
    loaded,
    error,
    fetchTokens,
    createToken,
    updateToken,
    renameToken,
    setTokenEnabled,
    revokeToken,
    $reset,
  };
});
