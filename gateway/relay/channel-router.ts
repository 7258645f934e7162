/**
 * @module gateway/relay/channel-router
 * Picks the channels that serve a model: the highest priority tier first, weighted random inside a
 * tier, then the lower tiers as fallbacks. The table is rebuilt whenever channels change, and upstream
 * keys are decrypted once at that moment, in memory only.
 */
import type { ChannelType } from '../../contracts/events/index.ts';
import { log } from '../../platform/log.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import { keyCiphertextsOf } from '../commands/channels.ts';
import type { RoutableChannel, Route } from '../providers/upstream-route.ts';
import { decryptSecret } from '../security/upstream-key-cipher.ts';

export type { RoutableChannel, Route } from '../providers/upstream-route.ts';

export class ChannelRouter {
  readonly #lookups: LookupReadModel;
  readonly #encryptionKey: Buffer;
  readonly #allowPrivateUpstreams: boolean;
  #byModel = new Map<string, RoutableChannel[]>();
  #secrets: readonly string[] = [];

  /** `allowPrivateUpstreams`: console channels may reach private addresses (`ALLOW_PRIVATE_UPSTREAMS`) */
  constructor(lookups: LookupReadModel, encryptionKey: Buffer, { allowPrivateUpstreams = false } = {}) {
    this.#lookups = lookups;
    this.#encryptionKey = encryptionKey;
    this.#allowPrivateUpstreams = allowPrivateUpstreams;
    this.rebuild();
    lookups.onChannelsChanged(() => this.rebuild());
  }

  rebuild(): void {
    const byModel = new Map<string, RoutableChannel[]>();
    for (const document of this.#lookups.channels()) {
      if (!document.enabled) continue;
      const channel = this.#routable(document);
      if (!channel) continue;
      for (const model of document.models) {
        const list = byModel.get(model) ?? [];
        list.push(channel);
        byModel.set(model, list);
      }
    }
    for (const list of byModel.values()) list.sort((left, right) => right.priority - left.priority);
    this.#byModel = byModel;
    this.#secrets = [
      ...new Set([...byModel.values()].flat().flatMap((channel) => channel.apiKeys ?? [channel.apiKey])),
    ];
  }

  /** Every upstream key of the routable channels: what a captured payload is scrubbed of. */
  secrets(): readonly string[] {
    return this.#secrets;
  }

  /** Null when the upstream key cannot be decrypted (e.g. the server secret changed): that channel is skipped, the rest still route. */
  #routable(document: ChannelDocument): RoutableChannel | null {
    let apiKeys: string[];
    try {
      apiKeys = keyCiphertextsOf(document).map((ciphertext) => decryptSecret(ciphertext, this.#encryptionKey));
    } catch {
      log.error('channel key cannot be decrypted; channel skipped', { channel: document.name });
      return null;
    }
    return {
      channelId: document.channelId,
      name: document.name,
      type: document.type,
      baseUrl: document.baseUrl.replace(/\/+$/, ''),
      apiKey: apiKeys[0]!,
      apiKeys,
      keyCursor: 0,
      connectTimeoutMs: document.connectTimeoutMs,
      firstByteTimeoutMs: document.firstByteTimeoutMs,
      idleTimeoutMs: document.idleTimeoutMs,
      // The operator's config file is trusted as written; what the console entered is checked again
      // at every connection (gateway/security/public-lookup.ts).
      publicOnly: !this.#allowPrivateUpstreams && document.source !== 'config',
      priority: document.priority,
      weight: document.weight,
      modelMapping: document.modelMapping,
      thinkingToContent: document.thinkingToContent,
      responsesApi: document.responsesApi === true,
      ...(document.apiVersion !== undefined && { apiVersion: document.apiVersion }),
      ...(document.region && { region: document.region }),
    };
  }

  /** Every model some enabled channel serves. */
  models(): string[] {
    return [...this.#byModel.keys()].sort();
  }

  /** Routes in the order to try them; empty when no channel of an accepted type serves the model. */
  routes(model: string, acceptedTypes: readonly ChannelType[], random: () => number = Math.random): Route[] {
    const serving = this.#byModel.get(model);
    if (!serving) return [];
    // The common case, one channel for the model: no shuffle, one allocation.
    if (serving.length === 1) {
      const channel = serving[0]!;
      return acceptedTypes.includes(channel.type)
        ? [{ channel, upstreamModel: channel.modelMapping[model] ?? model }]
        : [];
    }
    const candidates = serving.filter((channel) => acceptedTypes.includes(channel.type));
    const ordered: RoutableChannel[] = [];
    let start = 0;
    while (start < candidates.length) {
      const priority = candidates[start]!.priority;
      let end = start;
      while (end < candidates.length && candidates[end]!.priority === priority) end++;
      ordered.push(...weightedShuffle(candidates.slice(start, end), random));
      start = end;
    }
    return ordered.map((channel) => ({ channel, upstreamModel: channel.modelMapping[model] ?? model }));
  }
}

/** Weighted random order without replacement; weight 0 channels come last (standby). */
export function weightedShuffle<Item extends { weight: number }>(items: Item[], random: () => number): Item[] {
  const pool = [...items];
  const result: Item[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, item) => sum + item.weight, 0);
    let index = 0;
    if (total > 0) {
      let point = random() * total;
      index = pool.findIndex((item) => {
        point -= item.weight;
        return point < 0;
      });
      if (index < 0) index = pool.length - 1;
    }
    result.push(pool.splice(index, 1)[0]!);
  }
  return result;
}
