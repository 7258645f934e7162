/** A request's captured payload (docs/payloads.md): a 404 when none was kept or it is not the caller's. */
import type { PayloadView } from '@contracts/console-api-payloads.ts';
import { api } from './client.ts';

export const getPayloadApi = (requestId: string, signal?: AbortSignal) =>
  api.get<PayloadView>(`/usage/logs/${encodeURIComponent(requestId)}/payload`, { ...(signal && { signal }) });
