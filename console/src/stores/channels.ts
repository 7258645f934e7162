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

export const useChannelsStore = defineStore('channels', () => {
  const channels = ref<ChannelView[]>([]);
  const loading = ref(false);
  const error = ref<Error | null>(null);
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
      for (const channel of channels.value) await testChannel(channel.id).catch(() => undefined);
    } finally {
      testingAll.value = false;
    }
  }

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
    usage.value = {};
    testingAll.value = false;
  }

  return {
    channels,
    loading,
    error,
    testResults,
    testing,
    usage,
    testingAll,
    fetchUsage,
    testAll,
    fetchChannels,
    createChannel,
    updateChannel,
    deleteChannel,
    testChannel,
    $reset,
  };
});
