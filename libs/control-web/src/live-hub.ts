import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Subscription } from '@nats-io/nats-core';
import { Subjects, subject, type IdentityEntry } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import {
  CHANNEL_AGGREGATE,
  ControlData,
  IDENTITY_AGGREGATE,
  type ChannelInfo,
} from './control-data';
import { KeyedCoalescer } from './coalesce';
import { headers, SNOWFLAKE } from './http';
import { CONTROL_WEB_OPTIONS, type ControlWebOptions } from './options';
import { agentNames, channelBlock, identityRows } from './page';

/** Channel names and guilds from the last full listing, for live fragments. */
type ChannelMeta = Pick<ChannelInfo, 'name' | 'private' | 'guildId'>;

/**
 * Server-sent events for every open control page. A core NATS subscription on the event
 * store announces each stored channel or identity commit; the affected fragment is
 * rendered again from the read model (once it holds that commit) and pushed.
 */
@Injectable()
export class ControlLiveHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('control-web');
  private readonly clients = new Set<Response>();
  private readonly live = new KeyedCoalescer(
    (key) => this.push(key),
    (key, e) => this.log.warn(`live update ${key} failed: ${e.message}`),
  );
  private readonly subs: Subscription[] = [];
  private heartbeat?: NodeJS.Timeout;
  readonly channelMeta = new Map<string, ChannelMeta>();
  private names = new Map<string, string>();

  constructor(
    private readonly messaging: Messaging,
    private readonly data: ControlData,
    @Inject(CONTROL_WEB_OPTIONS) private readonly opts: ControlWebOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.opts.token) return;
    const nc = this.messaging.client.nc;
    const channelPrefix = subject.aggregate(CHANNEL_AGGREGATE, '');
    this.subs.push(
      nc.subscribe(subject.aggregate(CHANNEL_AGGREGATE, '>'), {
        callback: (_err, msg) => this.later(`ch:${msg.subject.slice(channelPrefix.length)}`),
      }),
      nc.subscribe(subject.aggregate(IDENTITY_AGGREGATE, '>'), {
        callback: () => this.later('identities'),
      }),
      nc.subscribe(Subjects.deadLetter.all, { callback: () => this.later('dead-letters') }),
    );
    this.heartbeat = setInterval(() => {
      for (const res of this.clients) res.write(': keep-alive\n\n');
    }, 15_000);
    this.heartbeat.unref();
  }

  beforeApplicationShutdown(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
    this.live.clear();
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  setNames(entries: readonly IdentityEntry[]): void {
    this.names = agentNames(entries);
  }

  attach(req: Request, res: Response): void {
    headers(res);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  /** Coalesces bursts of commits (a turn hand-off is several) into few pushes per key. */
  private later(key: string): void {
    if (this.clients.size > 0) this.live.announce(key);
  }

  private async push(key: string): Promise<void> {
    if (key === 'identities') {
      const entries = await this.data.identities();
      this.setNames(entries);
      this.send('identities', { html: identityRows(entries) });
    } else if (key === 'dead-letters') {
      this.send('dead-letters', {});
    } else {
      const channelId = key.slice(3);
      if (!SNOWFLAKE.test(channelId)) return;
      const folded = await this.data.channel(channelId);
      const meta = this.channelMeta.get(channelId);
      const info: ChannelInfo = {
        ...folded,
        guildId: meta?.guildId ?? folded.guildId,
        name: meta?.name ?? channelId,
        private: meta?.private ?? false,
      };
      this.send('channel', {
        channelId,
        guildId: info.guildId,
        html: channelBlock(info, this.names),
      });
    }
  }

  private send(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.clients) res.write(frame);
  }
}
