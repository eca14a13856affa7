import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';

/** Gateway opcodes the fake speaks. */
const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

interface Dispatched {
  s: number;
  t: string;
  d: unknown;
}

interface Session {
  id: string;
  seq: number;
  intents: number;
  /** `[shardId, shardCount]` from IDENTIFY (`[0, 1]` when absent). */
  shard: [number, number];
  socket: WebSocket | null;
  /** Everything dispatched in this session, for replay on RESUME. */
  log: Dispatched[];
}

export interface GatewayHooks {
  token: string;
  url: () => string;
  botId: () => string;
  /** READY's payload minus session fields, and the GUILD_CREATEs that follow it. */
  /** READY's payload minus session fields, and the GUILD_CREATEs that follow it, of a shard. */
  onIdentify: (inShard: (guildId: string) => boolean) => {
    ready: Record<string, unknown>;
    guildCreates: unknown[];
  };
  onRequestMembers: (guildId: string) => unknown[];
}

const REPLAY_LIMIT = 5000;

/** Gateway intents, and which dispatches need which. */
export const Intents = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  MessageContent: 1 << 15,
} as const;

const NEEDS: Record<string, number> = {
  CHANNEL_CREATE: Intents.Guilds,
  CHANNEL_UPDATE: Intents.Guilds,
  THREAD_CREATE: Intents.Guilds,
  THREAD_MEMBERS_UPDATE: Intents.GuildMembers,
  CHANNEL_DELETE: Intents.Guilds,
  CHANNEL_PINS_UPDATE: Intents.Guilds,
  GUILD_ROLE_CREATE: Intents.Guilds,
  GUILD_ROLE_UPDATE: Intents.Guilds,
  GUILD_MEMBER_UPDATE: Intents.GuildMembers,
  MESSAGE_UPDATE: Intents.GuildMessages,
  GUILD_MEMBER_ADD: Intents.GuildMembers,
  GUILD_MEMBER_REMOVE: Intents.GuildMembers,
  MESSAGE_CREATE: Intents.GuildMessages,
  MESSAGE_DELETE: Intents.GuildMessages,
  MESSAGE_REACTION_ADD: Intents.GuildMessageReactions,
  MESSAGE_REACTION_REMOVE: Intents.GuildMessageReactions,
  TYPING_START: Intents.GuildMessageTyping,
};

/** The shard of a guild, as Discord routes it: `(guildId >> 22) % shardCount`. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(Math.max(shardCount, 1)));
}

const GUILD_ITSELF = new Set(['GUILD_CREATE', 'GUILD_UPDATE', 'GUILD_DELETE']);

/** The guild a dispatch belongs to (none: a DM or a user event, sent on shard 0). */
function guildOfDispatch(t: string, d: any): string | null {
  if (GUILD_ITSELF.has(t)) return d?.id ?? null;
  return typeof d?.guild_id === 'string' ? d.guild_id : null;
}

/** What a session is sent of a dispatch, given its intents (null: nothing). */
export function forIntents(t: string, d: any, intents: number, botId: string): unknown {
  const needed = NEEDS[t];
  if (needed !== undefined && (intents & needed) === 0) return null;
  if (t === 'MESSAGE_CREATE' && (intents & Intents.MessageContent) === 0) {
    // Discord hides content without the privileged intent, except the bot's own messages.
    if (d?.author?.id !== botId) return { ...d, content: '', embeds: [], attachments: [] };
  }
  return d;
}

/** `[shardId, shardCount]` of an IDENTIFY, or null when it is not a valid pair. */
function readShard(v: unknown): [number, number] | null {
  if (v === undefined || v === null) return [0, 1];
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [id, count] = v.map(Number);
  if (!Number.isInteger(id) || !Number.isInteger(count) || count < 1 || id < 0 || id >= count) {
    return null;
  }
  return [id, count];
}

/**
 * The fake's gateway: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats and ACKs, RESUME
 * with replay of the dispatches missed while disconnected, INVALID_SESSION when the
 * session is gone. JSON encoding only, no compression (what discord.js uses without
 * zlib-sync).
 */
export class FakeGateway {
  readonly wss: WebSocketServer;
  private readonly sessions = new Map<string, Session>();
  heartbeatIntervalMs = 41250;
  identifies = 0;
  resumes = 0;
  /** Per shard id: how many sessions were opened (IDENTIFY) or resumed for it. */
  readonly opened = new Map<number, { identifies: number; resumes: number }>();
  /**
   * While set, every IDENTIFY is answered by closing the socket with this code, as Discord
   * closes it with 4014 when a privileged intent is not enabled for the application, or
   * 4004 when the token is refused.
   */
  refusal: { code: number; reason: string } | null = null;

  constructor(private readonly hooks: GatewayHooks) {
    this.wss = new WebSocketServer({ noServer: true });
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req));
  }

  private countFor(shardId: number): { identifies: number; resumes: number } {
    let c = this.opened.get(shardId);
    if (!c) this.opened.set(shardId, (c = { identifies: 0, resumes: 0 }));
    return c;
  }

  /** Sessions that completed IDENTIFY and have a live socket. */
  get readySessions(): number {
    return [...this.sessions.values()].filter((s) => s.socket?.readyState === WebSocket.OPEN)
      .length;
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    if (params.get('compress')) {
      ws.close(4000, 'compression is not supported by the fake gateway');
      return;
    }
    if ((params.get('encoding') ?? 'json') !== 'json') {
      ws.close(4002, 'only json encoding is supported');
      return;
    }
    let session: Session | null = null;
    const send = (payload: object) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
    };
    send({ op: Op.Hello, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
    ws.on('message', (raw) => {
      let msg: { op: number; d: any };
      try {
        msg = JSON.parse(raw.toString());
      } catch {
        ws.close(4002, 'decode error');
        return;
      }
      switch (msg.op) {
        case Op.Heartbeat:
          send({ op: Op.HeartbeatAck, d: null, s: null, t: null });
          return;
        case Op.Identify: {
          if (session) {
            ws.close(4005, 'already authenticated');
            return;
          }
          if (this.refusal) {
            ws.close(this.refusal.code, this.refusal.reason);
            return;
          }
          if (msg.d?.token !== this.hooks.token) {
            ws.close(4004, 'authentication failed');
            return;
          }
          const shard = readShard(msg.d.shard);
          if (!shard) {
            ws.close(4010, 'invalid shard');
            return;
          }
          this.identifies++;
          this.countFor(shard[0]).identifies++;
          session = {
            id: randomUUID().replace(/-/g, ''),
            seq: 0,
            intents: Number(msg.d.intents ?? 0),
            shard,
            socket: ws,
            log: [],
          };
          this.sessions.set(session.id, session);
          const own = session;
          const { ready, guildCreates } = this.hooks.onIdentify((g) => this.inShard(own, g));
          this.dispatchTo(session, 'READY', {
            ...ready,
            session_id: session.id,
            resume_gateway_url: this.hooks.url(),
            session_type: 'normal',
            shard,
          });
          for (const g of guildCreates) this.dispatchTo(session, 'GUILD_CREATE', g);
          return;
        }
        case Op.Resume: {
          const existing = this.sessions.get(String(msg.d?.session_id));
          if (!existing || msg.d?.token !== this.hooks.token) {
            send({ op: Op.InvalidSession, d: false, s: null, t: null });
            return;
          }
          this.resumes++;
          this.countFor(existing.shard[0]).resumes++;
          const old = existing.socket;
          if (old && old !== ws && old.readyState === WebSocket.OPEN) old.terminate();
          existing.socket = ws;
          session = existing;
          const from = Number(msg.d.seq ?? 0);
          for (const p of existing.log) {
            if (p.s > from) send({ op: Op.Dispatch, ...p });
          }
          this.dispatchTo(existing, 'RESUMED', null);
          return;
        }
        case Op.RequestGuildMembers: {
          if (!session) return;
          const guildId = String(msg.d?.guild_id);
          this.dispatchTo(session, 'GUILD_MEMBERS_CHUNK', {
            guild_id: guildId,
            members: this.hooks.onRequestMembers(guildId),
            chunk_index: 0,
            chunk_count: 1,
            nonce: msg.d?.nonce,
          });
          return;
        }
        case Op.PresenceUpdate:
          return;
        default:
          ws.close(4001, 'unknown opcode');
      }
    });
    ws.on('close', (code) => {
      if (!session || session.socket !== ws) return;
      session.socket = null;
      // A normal close ends the session on Discord too; anything else may be resumed.
      if (code === 1000 || code === 1001) this.sessions.delete(session.id);
    });
  }

  private dispatchTo(session: Session, t: string, d: unknown): void {
    session.seq += 1;
    const entry = { s: session.seq, t, d };
    session.log.push(entry);
    if (session.log.length > REPLAY_LIMIT) session.log.splice(0, session.log.length - REPLAY_LIMIT);
    const ws = session.socket;
    if (ws && ws.readyState === WebSocket.OPEN)
      ws.send(JSON.stringify({ op: Op.Dispatch, ...entry }));
  }

  private inShard(s: Session, guildId: string | null): boolean {
    const [id, count] = s.shard;
    return guildId === null ? id === 0 : shardOf(guildId, count) === id;
  }

  /** Identified sessions per shard id (live or waiting to resume). */
  get shardSessions(): Map<number, number> {
    const out = new Map<number, number>();
    for (const s of this.sessions.values()) out.set(s.shard[0], (out.get(s.shard[0]) ?? 0) + 1);
    return out;
  }

  /**
   * Sends a dispatch to every session (live or waiting to resume) of the guild's shard whose
   * intents want it.
   */
  dispatch(t: string, d: unknown): void {
    const guildId = guildOfDispatch(t, d);
    for (const s of this.sessions.values()) {
      if (!this.inShard(s, guildId)) continue;
      const shaped = forIntents(t, d, s.intents, this.hooks.botId());
      if (shaped !== null) this.dispatchTo(s, t, shaped);
    }
  }

  /**
   * Drops every gateway connection. `resumable` keeps the sessions so a RESUME replays what
   * was missed; otherwise the sessions are forgotten and the client must IDENTIFY again.
   */
  drop(opts: { resumable?: boolean } = {}): void {
    const resumable = opts.resumable ?? true;
    for (const s of [...this.sessions.values()]) {
      if (!resumable) this.sessions.delete(s.id);
      s.socket?.terminate();
      s.socket = null;
    }
  }

  /** Asks every connected client to reconnect (op 7). */
  requestReconnect(): void {
    for (const s of this.sessions.values()) {
      s.socket?.send(JSON.stringify({ op: Op.Reconnect, d: null, s: null, t: null }));
    }
  }

  close(): void {
    for (const s of this.sessions.values()) s.socket?.terminate();
    for (const c of this.wss.clients) c.terminate();
    this.sessions.clear();
    this.wss.close();
  }
}
