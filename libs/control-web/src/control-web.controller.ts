import { Body, Controller, Delete, Get, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ErrorCodes } from '@dirigent/contracts';
import { authorize, checkLogin, clearedCookie, sessionCookie, type AuthResult } from './auth';
import { CONTROL_CLIENT_JS } from './client';
import { ControlData, ReplyFailure } from './control-data';
import { asObject, fieldError, headers, snowflake, STATUS, validIdentity } from './http';
import { InsightData } from './insight-data';
import { decisionsPage, memoryPage } from './insight-page';
import { LearningData } from './learning-data';
import { learningPage } from './learning-page';
import { personasPage } from './persona-page';
import { ControlLiveHub } from './live-hub';
import { CONTROL_WEB_OPTIONS, type ControlWebOptions } from './options';
import { controlPage, deadLetterRows, disabledPage, identityRows, loginPage } from './page';

/** `/dirigent`: the page, its login, its script, its JSON API and its live events. */
@Controller('dirigent')
export class ControlWebController {
  constructor(
    private readonly data: ControlData,
    private readonly hub: ControlLiveHub,
    private readonly insight: InsightData,
    private readonly learning: LearningData,
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
    const tab = req.query.tab;
    if (tab === 'personas') {
      const agent = typeof req.query.agent === 'string' ? req.query.agent.slice(0, 64) : '';
      res.status(200).send(personasPage(await this.insight.personas(agent)));
      return;
    }
    if (tab === 'learning') {
      const { guilds } = await this.data.guilds();
      const pick = (v: unknown) => (typeof v === 'string' ? v.slice(0, 64) : '');
      const guild = guilds.find((g) => g.guildId === pick(req.query.guild)) ?? guilds[0];
      const view = await this.learning.tab(guilds, guild?.guildId ?? null, pick(req.query.agent));
      res.status(200).send(learningPage(view));
      return;
    }
    if (tab === 'memory' || tab === 'decisions') {
      res.status(200).send(await this.tab(tab, req.query));
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

  /** The memory and decision-log tabs, for the guild (and filters) in the query string. */
  private async tab(tab: 'memory' | 'decisions', q: Request['query']): Promise<string> {
    const text = (v: unknown, max: number) => (typeof v === 'string' ? v.trim().slice(0, max) : '');
    const { guilds } = await this.data.guilds();
    const guild = guilds.find((g) => g.guildId === text(q.guild, 20)) ?? guilds[0];
    if (tab === 'memory') {
      // The live window is guild-wide; the lens wants a channel to weight: a conducted one first.
      const anchor = guild?.channels.find((c) => c.known) ?? guild?.channels[0];
      const view = guild
        ? await this.insight.memory(guild.guildId, anchor?.channelId, text(q.q, 2000))
        : null;
      return memoryPage(guilds, view);
    }
    if (!guild) return decisionsPage(guilds, null);
    const filter = Object.fromEntries(
      Object.entries({
        guildId: guild.guildId,
        channelId: text(q.channel, 20),
        dispositionId: text(q.disposition, 64),
        trigger: text(q.trigger, 40),
      }).filter(([, v]) => v !== ''),
    ) as { guildId: string };
    return decisionsPage(guilds, await this.insight.decisions(filter));
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
        case 'advance':
          return this.data.advance(guildId, id);
        default:
          throw new ReplyFailure(ErrorCodes.NOT_FOUND, `no channel setting ${setting}`);
      }
    });
  }

  @Get('api/proposals')
  async proposals(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => {
      const status = req.query.status;
      return this.data.proposals(
        snowflake(req.query.guildId, 'guildId'),
        typeof status === 'string' ? status : undefined,
      );
    });
  }

  /**
   * Approves or rejects a proposal. The actor is the admin the control token stands for
   * (`DIRIGENT_CONTROL_ACTOR_USER_ID`), never anything in the request: an `actorUserId` in
   * the body is ignored.
   */
  @Post('api/proposals/:proposalId/decide')
  async decideProposal(
    @Req() req: Request,
    @Res() res: Response,
    @Param('proposalId') proposalId: string,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => {
      const actor = this.opts.actorUserId;
      if (!actor) {
        throw new ReplyFailure(
          ErrorCodes.FORBIDDEN,
          'the control page decides for no one: set DIRIGENT_CONTROL_ACTOR_USER_ID to the Discord member the control token stands for',
        );
      }
      const approve = asObject(body).approve;
      if (typeof approve !== 'boolean')
        throw fieldError('approve', 'approve must be true or false');
      return this.data.decideProposal(proposalId, approve, actor);
    });
  }

  @Post('api/personas/:agentId/rollback')
  async rollbackPersona(
    @Req() req: Request,
    @Res() res: Response,
    @Param('agentId') agentId: string,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.insight.rollbackPersona(agentId, asObject(body).version));
  }

  /** The guild's last decisions replayed under candidate weights (`router.whatif`). */
  @Post('api/learning/whatif')
  async whatIf(@Req() req: Request, @Res() res: Response, @Body() body: unknown): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.learning.whatIf(body));
  }

  /** `{ weights }` as the persona's next version; nothing in the body names an actor. */
  @Post('api/personas/:agentId/weights')
  async saveWeights(
    @Req() req: Request,
    @Res() res: Response,
    @Param('agentId') agentId: string,
    @Body() body: unknown,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.learning.saveWeights(agentId, body));
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
    await this.run(res, () => this.data.redrive(deadLetterSeq(seq)));
  }

  @Post('api/dead-letters/:seq/discard')
  async discard(
    @Req() req: Request,
    @Res() res: Response,
    @Param('seq') seq: string,
  ): Promise<void> {
    if (!this.api(req, res)) return;
    await this.run(res, () => this.data.discardDeadLetter(deadLetterSeq(seq)));
  }
}

function deadLetterSeq(seq: string): number {
  const n = Number(seq);
  if (!Number.isSafeInteger(n) || n < 1) throw fieldError('seq', 'seq must be a positive integer');
  return n;
}
