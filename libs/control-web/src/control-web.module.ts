import {
  Body,
  Controller,
  Delete,
  Get,
  Inject,
  Injectable,
  Logger,
  Module,
  Param,
  Post,
  Put,
  Req,
  Res,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Subscription } from '@nats-io/nats-core';
import {
  ErrorCodes,
  IdentityUpsertRequest,
  Subjects,
  subject,
  validatePayload,
  type IdentityEntry,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { authorize, checkLogin, clearedCookie, sessionCookie, type AuthResult } from './auth';
import { CONTROL_CLIENT_JS } from './client';
import {
  CHANNEL_AGGREGATE,
  ControlData,
  IDENTITY_AGGREGATE,
  ReplyFailure,
  type ChannelInfo,
} from './control-data';
import {
  agentNames,
  channelBlock,
  controlPage,
  deadLetterRows,
  disabledPage,
  identityRows,
  loginPage,
} from './page';

export interface ControlWebOptions {
  /** `DIRIGENT_CONTROL_TOKEN`; without it the page and its API answer 503. */
  token?: string;
  /** padded-cell's `ego.json`: the Re-scan button shows only when it is detected. */
  egoFile?: string;
}

export const CONTROL_WEB_OPTIONS = Symbol('CONTROL_WEB_OPTIONS');

const STATUS: Record<string, number> = {
  [ErrorCodes.BAD_REQUEST]: 400,
  [ErrorCodes.INVALID_MODE]: 400,
  [ErrorCodes.UNAUTHORIZED]: 401,
  [ErrorCodes.FORBIDDEN]: 403,
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.CONFLICT]: 409,
  [ErrorCodes.MODE_LOCKED]: 409,
  [ErrorCodes.UNAVAILABLE]: 503,
  [ErrorCodes.TIMEOUT]: 504,
};

const SECURITY_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

function headers(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
  return res;
}

const SNOWFLAKE = /^\d{1,20}$/;

/** Channel names and guilds from the last full listing, for live fragments. */
type ChannelMeta = Pick<ChannelInfo, 'name' | 'private' | 'guildId'>;

/**
 * Server-sent events for every open control page, fed by a core NATS subscription on the
 * event store: each stored channel or identity commit is announced there, and the
 * affected fragment is rendered again from the store and pushed.
 */
@Injectable()
export class ControlLiveHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('control-web');
  private readonly clients = new Set<Response>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
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
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
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

  /** Coalesces bursts of commits (a turn hand-off is several) into one push per key. */
  private later(key: string): void {
    if (this.clients.size === 0 || this.pending.has(key)) return;
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        this.push(key).catch((e: Error) =>
          this.log.warn(`live update ${key} failed: ${e.message}`),
        );
      }, 60),
    );
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

/** `/dirigent`: the page, its login, its script, its JSON API and its live events. */
@Controller('dirigent')
export class ControlWebController {
  constructor(
    private readonly data: ControlData,
    private readonly hub: ControlLiveHub,
    @Inject(CONTROL_WEB_OPTIONS) private readonly opts: ControlWebOptions,
  ) {}

  private check(req: Request): AuthResult {
    return authorize(this.opts.token, {
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
    });
  }

  /** For the JSON API: false (and the answer sent) unless authorized. */
  private api(req: Request, res: Response): boolean {
    const auth = this.check(req);
    if (auth.ok) return true;
    headers(res);
    if (auth.reason === 'disabled') {
      res.status(503).json({
        ok: false,
        error: {
          code: ErrorCodes.UNAVAILABLE,
          message: 'control page disabled: DIRIGENT_CONTROL_TOKEN is not set',
        },
      });
    } else {
      res
        .status(401)
        .setHeader('www-authenticate', 'Bearer realm="dirigent"')
        .json({ ok: false, error: { code: ErrorCodes.UNAUTHORIZED, message: 'unauthorized' } });
    }
    return false;
  }

  private async run(res: Response, fn: () => Promise<unknown>): Promise<void> {
    headers(res);
    try {
      res.status(200).json({ ok: true, data: await fn() });
    } catch (e) {
      if (e instanceof ReplyFailure) {
        res.status(STATUS[e.code] ?? 500).json({
          ok: false,
          error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
        });
        return;
      }
      res.status(500).json({
        ok: false,
        error: { code: ErrorCodes.INTERNAL, message: 'internal error' },
      });
    }
  }

  @Get()
  async page(@Req() req: Request, @Res() res: Response): Promise<void> {
    headers(res).type('html');
    const auth = this.check(req);
    if (!auth.ok) {
      if (auth.reason === 'disabled') res.status(503).send(disabledPage());
      else res.status(401).send(loginPage(null));
      return;
    }
    const [identities, egoDetected, guilds, deadLetters] = await Promise.all([
      this.data.identities().catch(() => []),
      this.data.egoDetected(),
      this.data.guilds(),
      this.data.deadLetters().catch(() => []),
    ]);
    this.hub.setNames(identities);
    for (const g of guilds.guilds) {
      for (const c of g.channels) {
        this.hub.channelMeta.set(c.channelId, {
          name: c.name,
          private: c.private,
          guildId: g.guildId,
        });
      }
    }
    res.status(200).send(controlPage({ identities, egoDetected, guilds, deadLetters }));
  }

  @Post('login')
  login(@Req() req: Request, @Res() res: Response, @Body() body: unknown): void {
    headers(res).type('html');
    if (!this.opts.token) {
      res.status(503).send(disabledPage());
      return;
    }
    const given = (body as { token?: unknown } | undefined)?.token;
    if (!checkLogin(this.opts.token, given)) {
      res.status(401).send(loginPage('That token is not right.'));
      return;
    }
    const secure = req.secure || req.headers['x-forwarded-proto'] === 'https';
    res.setHeader('set-cookie', sessionCookie(this.opts.token, secure));
    res.redirect(303, '/dirigent');
  }

  @Post('logout')
  logout(@Res() res: Response): void {
    headers(res).setHeader('set-cookie', clearedCookie());
    res.redirect(303, '/dirigent');
  }

  @Get('app.js')
  script(@Res() res: Response): void {
    headers(res).type('application/javascript').send(CONTROL_CLIENT_JS);
  }

  @Get('fragment/identities')
  async identitiesFragment(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    const entries = await this.data.identities();
    this.hub.setNames(entries);
    res.type('html').send(identityRows(entries));
  }

  @Get('fragment/dead-letters')
  async deadLettersFragment(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    res.type('html').send(deadLetterRows(await this.data.deadLetters()));
  }

  @Get('api/events')
  events(@Req() req: Request, @Res() res: Response): void {
    if (!this.api(req, res)) return;
    this.hub.attach(req, res);
  }

  @Get('api/identities')
  async identities(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, async () => ({ entries: await this.data.identities() }));
  }

  @Post('api/identities')
  async addIdentity(
    @Req() req: Request,
    @Res() res: Response,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.data.upsertIdentity(validIdentity(body)));
  }

  @Put('api/identities/:discordUserId')
  async saveIdentity(
    @Req() req: Request,
    @Res() res: Response,
    @Param('discordUserId') discordUserId: string,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () =>
      this.data.upsertIdentity(validIdentity({ ...asObject(body), discordUserId })),
    );
  }

  @Delete('api/identities/:discordUserId')
  async deleteIdentity(
    @Req() req: Request,
    @Res() res: Response,
    @Param('discordUserId') discordUserId: string,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, async () => {
      const { removed } = await this.data.removeIdentity(snowflake(discordUserId, 'discordUserId'));
      if (!removed)
        throw new ReplyFailure(ErrorCodes.NOT_FOUND, `no identity for ${discordUserId}`);
      return { removed };
    });
  }

  @Post('api/identities/rescan')
  async rescan(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, async () => {
      if (!(await this.data.egoDetected())) {
        throw new ReplyFailure(ErrorCodes.NOT_FOUND, 'padded-cell ego.json is not detected');
      }
      return this.data.rescan();
    });
  }

  @Get('api/guilds')
  async guilds(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.data.guilds());
  }

  @Get('api/channels/:channelId')
  async channel(
    @Req() req: Request,
    @Res() res: Response,
    @Param('channelId') channelId: string,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.data.channel(snowflake(channelId, 'channelId')));
  }

  @Post('api/channels/:channelId/:setting')
  async setChannel(
    @Req() req: Request,
    @Res() res: Response,
    @Param('channelId') channelId: string,
    @Param('setting') setting: string,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => {
      const b = asObject(body);
      const id = snowflake(channelId, 'channelId');
      const guildId = snowflake(b.guildId, 'guildId');
      switch (setting) {
        case 'mode':
          return this.data.setMode(guildId, id, String(b.mode ?? ''));
        case 'shuffle':
          if (b.shuffle !== null && typeof b.shuffle !== 'boolean') {
            throw fieldError('shuffle', 'shuffle must be true, false or null');
          }
          return this.data.setShuffle(guildId, id, b.shuffle);
        case 'wake-mode':
          return this.data.setWakeMode(guildId, id, String(b.wakeMode ?? ''));
        default:
          throw new ReplyFailure(ErrorCodes.NOT_FOUND, `no channel setting ${setting}`);
      }
    });
  }

  @Get('api/dead-letters')
  async deadLetters(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, async () => ({ deadLetters: await this.data.deadLetters() }));
  }

  @Post('api/dead-letters/:seq/redrive')
  async redrive(
    @Req() req: Request,
    @Res() res: Response,
    @Param('seq') seq: string,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => {
      const n = Number(seq);
      if (!Number.isSafeInteger(n) || n < 1)
        throw fieldError('seq', 'seq must be a positive integer');
      return this.data.redrive(n);
    });
  }
}

function asObject(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

function fieldError(field: string, message: string): ReplyFailure {
  return new ReplyFailure(ErrorCodes.BAD_REQUEST, message, [{ field, messages: [message] }]);
}

function snowflake(value: unknown, field: string): string {
  if (typeof value !== 'string' || !SNOWFLAKE.test(value)) {
    throw fieldError(field, `${field} must be a Discord snowflake`);
  }
  return value;
}

/** The registry entry out of a request body, through the contract's own validation. */
function validIdentity(body: unknown): IdentityUpsertRequest {
  const b = asObject(body);
  const input: Record<string, unknown> = {
    discordUserId: b.discordUserId,
    agentId: b.agentId,
  };
  if (typeof b.agentName === 'string' && b.agentName.trim() !== '') input.agentName = b.agentName;
  const checked = validatePayload(IdentityUpsertRequest, input);
  if (!checked.ok) {
    throw new ReplyFailure(ErrorCodes.BAD_REQUEST, 'invalid identity', checked.errors);
  }
  return checked.value;
}

/**
 * The control page as a Nest module, for the turn coordinator's HTTP server.
 *
 * @example
 * imports: [ControlWebModule.forRoot({ token: config.DIRIGENT_CONTROL_TOKEN })]
 */
@Module({})
export class ControlWebModule {
  static forRoot(opts: ControlWebOptions): DynamicModule {
    return {
      module: ControlWebModule,
      controllers: [ControlWebController],
      providers: [
        { provide: CONTROL_WEB_OPTIONS, useValue: opts },
        {
          provide: ControlData,
          inject: [Messaging],
          useFactory: (messaging: Messaging) =>
            new ControlData(messaging, { egoFile: opts.egoFile }),
        },
        ControlLiveHub,
      ],
    };
  }
}
