import { Body, Controller, Delete, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { LLM_GUILD } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { budgetDay, GatewayError, purposeRouteSchema, usdToMicros } from '@dirigent/llm';
import { authorized } from './auth';
import type { LlmGatewayConfig } from './config';
import { sendError } from './http.controller';
import { DEFAULT_BUDGET_ROW, GuildBudgets, PgBudgetStore, PolicyStore } from './stores';

const PURPOSE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const budgetBody = z.object({ usdPerDay: z.number().min(0).max(1_000_000) }).strict();

function bad(param: string, message: string): GatewayError {
  return new GatewayError(
    400,
    'invalid_request_error',
    'invalid_request',
    `${param}: ${message}`,
    param,
  );
}

function zodProblem(e: z.ZodError): GatewayError {
  const i = e.issues[0];
  const field = i.path.join('.') || '(body)';
  return bad(field, i.message.toLowerCase());
}

/**
 * The policy part of the gateway at run time, stored in Postgres: purpose routes,
 * guild budgets (`default` is every guild's), per-guild spend and ledger totals. Bearer
 * `DIRIGENT_CONTROL_TOKEN` when set, else `DIRIGENT_GATEWAY_TOKEN`; with neither,
 * loopback only.
 */
@Controller('admin/llm')
export class AdminController {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
    private readonly policy: PolicyStore,
    private readonly budgets: GuildBudgets,
    private readonly spend: PgBudgetStore,
  ) {}

  private async run(req: Request, res: Response, fn: () => Promise<unknown>): Promise<void> {
    try {
      const token = this.config.DIRIGENT_CONTROL_TOKEN ?? this.config.DIRIGENT_GATEWAY_TOKEN;
      if (!authorized(req, [token]))
        throw new GatewayError(
          401,
          'invalid_request_error',
          'invalid_api_key',
          'missing or wrong bearer token',
        );
      res.json(await fn());
    } catch (e) {
      sendError(res, e);
    }
  }

  @Get('policy')
  getPolicy(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.run(req, res, async () => {
      const stored = await this.budgets.list();
      const { [DEFAULT_BUDGET_ROW]: storedDefault, ...storedGuilds } = stored;
      return {
        purposes: this.policy.purposes(),
        overrides: this.policy.overridden(),
        budgets: {
          defaultGuildUsdPerDay: storedDefault ?? this.config.llm.budgets.defaultGuildUsdPerDay,
          guilds: { ...this.config.llm.budgets.guilds, ...storedGuilds },
        },
        models: this.config.llm.models.map((m) => m.id),
      };
    });
  }

  @Put('purposes/:purpose')
  putPurpose(
    @Req() req: Request,
    @Res() res: Response,
    @Param('purpose') purpose: string,
    @Body() body: unknown,
  ): Promise<void> {
    return this.run(req, res, async () => {
      if (!PURPOSE.test(purpose)) throw bad('purpose', 'must be a lowercase token');
      const parsed = purposeRouteSchema.safeParse(body);
      if (!parsed.success) throw zodProblem(parsed.error);
      const problem = this.policy.validate(parsed.data);
      if (problem) throw bad('model', problem);
      await this.policy.set(purpose, parsed.data);
      return { purpose, ...parsed.data };
    });
  }

  @Delete('purposes/:purpose')
  deletePurpose(
    @Req() req: Request,
    @Res() res: Response,
    @Param('purpose') purpose: string,
  ): Promise<void> {
    return this.run(req, res, async () => ({ removed: await this.policy.remove(purpose) }));
  }

  private guildKey(guild: string): string {
    if (guild === 'default') return DEFAULT_BUDGET_ROW;
    if (!LLM_GUILD.test(guild)) throw bad('guildId', 'must be 1-64 letters, digits, _ or -');
    return guild;
  }

  @Put('budgets/:guildId')
  putBudget(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Body() body: unknown,
  ): Promise<void> {
    return this.run(req, res, async () => {
      const key = this.guildKey(guild);
      const parsed = budgetBody.safeParse(body);
      if (!parsed.success) throw zodProblem(parsed.error);
      await this.budgets.set(key, parsed.data.usdPerDay);
      return { guildId: guild, usdPerDay: parsed.data.usdPerDay };
    });
  }

  @Delete('budgets/:guildId')
  deleteBudget(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
  ): Promise<void> {
    return this.run(req, res, async () => ({
      removed: await this.budgets.remove(this.guildKey(guild)),
    }));
  }

  @Get('spend/:guildId')
  getSpend(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Query('days') daysParam?: string,
  ): Promise<void> {
    return this.run(req, res, async () => {
      if (!LLM_GUILD.test(guild)) throw bad('guildId', 'must be 1-64 letters, digits, _ or -');
      const days = daysParam === undefined ? 7 : Number(daysParam);
      if (!Number.isInteger(days) || days < 1 || days > 366) throw bad('days', 'must be 1-366');
      const b = this.config.llm.budgets;
      const configured = b.guilds[guild];
      return {
        guildId: guild,
        days: await this.spend.spend(guild, days, {
          guildMicros: configured === undefined ? undefined : usdToMicros(configured),
          defaultMicros: usdToMicros(b.defaultGuildUsdPerDay),
        }),
      };
    });
  }

  @Get('usage/:guildId')
  getUsage(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Query('day') dayParam?: string,
  ): Promise<void> {
    return this.run(req, res, async () => {
      if (!LLM_GUILD.test(guild)) throw bad('guildId', 'must be 1-64 letters, digits, _ or -');
      const day = dayParam ?? budgetDay(Date.now());
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)))
        throw bad('day', 'must be a date (YYYY-MM-DD)');
      return { guildId: guild, day, usage: await this.spend.usage(guild, day) };
    });
  }
}
