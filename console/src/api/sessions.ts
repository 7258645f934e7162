/** Sessions: the requests that named the same session, listed and one by one. */
import type { SessionDetail, SessionsPage, SessionsQuery } from '@contracts/console-api.ts';
import { api } from './client.ts';

export const listSessionsApi = (query: SessionsQuery) => api.get<SessionsPage>('/sessions', { query });
export const getSessionApi = (sessionId: string) =>
  api.get<SessionDetail>(`/sessions/${encodeURIComponent(sessionId)}`);
