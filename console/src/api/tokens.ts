/** The signed-in user's API keys. */
import type {
  CreatedToken,
  CreateTokenRequest,
  ListOf,
  TokenView,
  UpdateTokenRequest,
} from '@contracts/console-api.ts';
import type { ModelCatalogEntry } from '@contracts/console-api-models.ts';
import { api } from './client.ts';

export const listTokensApi = () => api.get<ListOf<TokenView>>('/tokens');
export const createTokenApi = (input: CreateTokenRequest) => api.post<CreatedToken>('/tokens', input);
export const updateTokenApi = (id: string, input: UpdateTokenRequest) =>
  api.patch<TokenView>(`/tokens/${encodeURIComponent(id)}`, input);
export const revokeTokenApi = (id: string) => api.delete<TokenView>(`/tokens/${encodeURIComponent(id)}`);
/** The models the channels serve: the choices of a key's model allowlist. */
export const listModelsApi = () => api.get<ListOf<string>>('/models');
/** The models the caller (or one of their keys) may call, with their prices. */
export const listModelPricesApi = (tokenId?: string) =>
  api.get<ListOf<ModelCatalogEntry>>(`/models/prices${tokenId ? `?token_id=${encodeURIComponent(tokenId)}` : ''}`);
