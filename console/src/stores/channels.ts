/** Admin: the upstream channels, and the latest test result of each. */

import type {
  ChannelTestResult,
  ChannelView,
  CreateChannelRequest,
  UpdateChannelRequest,
} from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import {
  createChannelApi,
  deleteChannelApi,
  listChannelsApi,
  testChannelApi,
  updateChannelApi,
} from '../api/channels.ts';

export const useChannelsStore = defineStore('channels', () => {
  const channels = ref<ChannelView[]>([]);
  const loading = ref(false);
  const error = ref<Error | null>(null);
  const testResults = ref<Record<string, ChannelTestResult>>({});
  const testing = ref<Record<string, boolean>>({});

  async function fetchChannels(): Promise<void> {
    loading.value = true;
    error.value = null;
    try {
      channels.value = (await listChannelsApi()).items;
    } catch (caught) {
      error.value = caught as Error;
    } finally {
      loading.value = false;
    }
  }

  async function createChannel(input: CreateChannelRequest): Promise<ChannelView> {
    const created = await createChannelApi(input);
    await fetchChannels();
    return created;
  }

  async function updateChannel(id: string, input: UpdateChannelRequest): Promise<ChannelView> {
    const updated = await updateChannelApi(id, input);
    channels.value = channels.value.map((channel) => (channel.id === id ? updated : channel));
    return updated;
  }

  async function deleteChannel(id: string): Promise<void> {
    await deleteChannelApi(id);
    channels.value = channels.value.filter((channel) => channel.id !== id);
  }

  async function testChannel(id: string): Promise<ChannelTestResult> {
    testing.value = { ...testing.value, [id]: true };
    try {
      const result = await testChannelApi(id);
      testResults.value = { ...testResults.value, [id]: result };
      return result;
    } finally {
      testing.value = { ...testing.value, [id]: false };
    }
  }

  function $reset(): void {
    channels.value = [];
    loading.value = false;
    error.value = null;
    testResults.value = {};
    testing.value = {};
  }

  return {
    channels,
    loading,
    error,
    testResults,
    testing,
    fetchChannels,
    createChannel,
    updateChannel,
    deleteChannel,
    testChannel,
    $reset,
  };
});
