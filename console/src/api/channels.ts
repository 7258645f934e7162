/** Admin: upstream channels. The upstream key is write-only. */
import type {
  ChannelTestResult,
  ChannelUsageList,
  ChannelView,
  CreateChannelRequest,
  ListOf,
  UpdateChannelRequest,
} from '@contracts/console-api.ts';
import { api } from './client.ts';

const path = (id: string) => `/channels/${encodeURIComponent(id)}`;

export const listChannelsApi = () => api.get<ListOf<ChannelView>>('/channels');
export const createChannelApi = (input: CreateChannelRequest) => api.post<ChannelView>('/channels', input);
export const updateChannelApi = (id: string, input: UpdateChannelRequest) => api.patch<ChannelView>(path(id), input);
export const deleteChannelApi = (id: string) => api.delete<void>(path(id));
export const channelUsageApi = (hours = 24) => api.get<ChannelUsageList>('/channels/usage', { query: { hours } });
export const testChannelApi = (id: string, model?: string) =>
  api.post<ChannelTestResult>(`${path(id)}/test`, model ? { model } : {});
