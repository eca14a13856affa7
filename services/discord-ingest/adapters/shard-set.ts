import { Events, Status, WebSocketShard, WebSocketShardEvents, type Client } from 'discord.js';

/** One gateway connection of @discordjs/ws (the part used here). */
interface WsShard {
  connect(): Promise<void>;
  destroy(o: { code: number; reason: string }): Promise<void>;
  removeAllListeners(): void;
}

/**
 * What of discord.js's own WebSocketManager (14.x, pinned) the shard set is changed through:
 * `connect()` builds its @discordjs/ws manager (`_ws`, whose SimpleShardingStrategy keeps
 * one connection per shard in `strategy.shards`) from `client.options.shards` and
 * `shardCount`, and keeps one discord.js wrapper per shard in `shards` (its session, its
 * readiness).
 */
interface ShardedWs {
  _ws: {
    options: { shardIds: number[] | null; shardCount: number | null };
    shardIds: number[] | null;
    strategy: { shards?: Map<number, WsShard>; spawn(ids: number[]): Promise<void> };
    removeAllListeners(): void;
    destroy(o: { code: number; reason: string }): Promise<void>;
  } | null;
  shards: Map<number, WebSocketShard>;
  totalShards: number;
  connect(): Promise<void>;
  checkShardsReady(): void;
}

/** How long a newly connected shard may take to receive its guilds. */
const SHARD_READY_MS = 30_000;

const NORMAL = 1000;

/**
 * Makes `client`'s gateway hold exactly shards `ids` of `count`. Only the difference moves:
 * a shard no longer held is closed and its guilds leave the cache, a newly held one is
 * connected (IDENTIFY), and the shards held before and after keep their sessions. Resolves
 * once every new shard is ready (its guilds received), or rejects after a time.
 *
 * The first set (or a new shard count) goes through discord.js's `connect()`; later changes
 * go to its @discordjs/ws manager's sharding strategy shard by shard.
 */
export async function connectShardSet(client: Client, ids: number[], count: number): Promise<void> {
  const ws = client.ws as unknown as ShardedWs;
  const strategy = ws._ws?.strategy;
  const incremental = !!ws._ws && ws._ws.options.shardCount === count && !!strategy?.shards;
  const held = new Set(ids);
  const added = incremental ? ids.filter((k) => !ws.shards.has(k)) : ids;
  if (incremental) {
    for (const k of [...ws.shards.keys()].filter((id) => !held.has(id))) {
      const conn = strategy!.shards!.get(k);
      // Its close is a hand-over, not a drop for discord.js to report as reconnecting.
      conn?.removeAllListeners();
      await conn?.destroy({ code: NORMAL, reason: 'shard handed over' });
      strategy!.shards!.delete(k);
      ws.shards.get(k)?.removeAllListeners();
      ws.shards.delete(k);
    }
  } else if (ws._ws) {
    ws._ws.removeAllListeners();
    await ws._ws.destroy({ code: NORMAL, reason: 'shard count changed' });
    ws._ws = null;
    ws.shards.clear();
  }
  const gone = client.guilds.cache.filter((g) => !held.has(g.shardId));
  client.channels.cache.sweep((c) => 'guildId' in c && gone.has(c.guildId));
  client.guilds.cache.sweep((g) => gone.has(g.id));
  client.options.shards = ids;
  client.options.shardCount = count;
  if (added.length === 0) return;
  const ready = shardsReady(client, added);
  try {
    if (incremental) {
      const manager = ws._ws!;
      manager.options.shardIds = ids;
      manager.shardIds = ids;
      ws.totalShards = ids.length;
      for (const k of added) ws.shards.set(k, wrapper(client, ws, k));
      await strategy!.spawn(added);
      await Promise.all(added.map((k) => strategy!.shards!.get(k)!.connect()));
    } else if (ids.length > 0) {
      await ws.connect();
    }
    await ready.done;
  } finally {
    ready.cancel();
  }
}

/** discord.js's wrapper of a shard, wired as its `connect()` wires one. */
function wrapper(client: Client, ws: ShardedWs, id: number): WebSocketShard {
  const Shard = WebSocketShard as unknown as new (m: ShardedWs, id: number) => WebSocketShard;
  const shard = new Shard(ws, id);
  shard.on(WebSocketShardEvents.AllReady, (unavailable: Set<string> | undefined) => {
    client.emit(Events.ShardReady, id, unavailable);
    ws.checkShardsReady();
  });
  shard.status = Status.Connecting;
  return shard;
}

function shardsReady(client: Client, ids: number[]): { done: Promise<void>; cancel(): void } {
  const waiting = new Set(ids);
  let timer: NodeJS.Timeout | undefined;
  let onReady!: (id: number) => void;
  const done = new Promise<void>((resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`shards ${[...waiting].join(',')} not ready`)),
      SHARD_READY_MS,
    );
    onReady = (id) => {
      waiting.delete(id);
      if (waiting.size === 0) resolve();
    };
    client.on(Events.ShardReady, onReady);
  });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      client.off(Events.ShardReady, onReady);
    },
  };
}
