/** Admin: the upstream channels, and the latest test result of each. */

import type {
  ChannelTestResult,
  ChannelUsage,
  ChannelView,
  CreateChannelRequest,
  UpdateChannelRequest,
} from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import {
  channelUsageApi,
  createChannelApi,
  deleteChannelApi,
  listChannelsApi,
  testChannelApi,
  updateChannelApi,
} from '../api/channels.ts';
import { useListLoader } from '../composables/use-list-loader.ts';

export const useChannelsStore = defineStore('channels', () => {
  const list = useListLoader(listChannelsApi);
  const testResults = ref<Record<string, ChannelTestResult>>({});
  const testing = ref<Record<string, boolean>>({});
  /** each channel's calls, errors and latency over the last 24 hours */
  const usage = ref<Record<string, ChannelUsage>>({});
  const testingAll = ref(false);

  /** Best effort: the list is useful without the figures. */
  async function fetchUsage(): Promise<void> {
    try {
      usage.value = Object.fromEntries((await channelUsageApi()).items.map((row) => [row.channel_id, row]));
    } catch {
      usage.value = {};
    }
  }

  /** Tests every channel, one after another (each test is a real upstream call). */
  async function testAll(): Promise<void> {
    testingAll.value = true;
    try {
      for (const channel of list.items.value) await testChannel(channel.id).catch(() => undefined);
    } finally {
      testingAll.value = false;
    }
  }

  /** Loads the list again: a new channel's place depends on its priority, which the server orders by. */
  async function createChannel(input: CreateChannelRequest): Promise<ChannelView> {
    const created = await createChannelApi(input);
    await list.fetch();
    return created;
  }

  const updateChannel = async (id: string, input: UpdateChannelRequest): Promise<ChannelView> =>
    list.put(await updateChannelApi(id, input));

  async function deleteChannel(id: string): Promise<void> {
    await deleteChannelApi(id);
    list.remove(id);
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
    list.reset();
    testResults.value = {};
    testing.value = {};
    usage.value = {};
    testingAll.value = false;
  }

  return {
    channels: list.items,
    loading: list.loading,
    loaded: list.loaded,
    error: list.error,
    fetchChannels: list.fetch,
    testResults,
    testing,
    usage,
    testingAll,
    fetchUsage,
    testAll,
    createChannel,
    updateChannel,
    deleteChannel,
    testChannel,
    $reset,
  };
});
