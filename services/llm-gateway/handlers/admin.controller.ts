import { Body, Controller, Delete, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { IsNumber, Max, Min } from 'class-validator';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { GatewayError, PurposeRoute, validateFields } from '@dirigent/llm';
import { GetPolicy } from '../application/get-policy';
import { GetSpend } from '../application/get-spend';
import { GetUsage } from '../application/get-usage';
import { invalid } from '../application/invalid';
import { RemoveGuildBudget } from '../application/remove-guild-budget';
import { RemovePurposeRoute } from '../application/remove-purpose-route';
import { SetGuildBudget } from '../application/set-guild-budget';
import { SetPurposeRoute } from '../application/set-purpose-route';
import type { LlmGatewayConfig } from '../config';
import { authorized } from './auth';
import { sendError } from './http-errors';

class BudgetBody {
  @IsNumber() @Min(0) @Max(1_000_000) usdPerDay: number;
}

/** The body as an instance of `cls` (no other fields), or a 400 naming the first bad field. */
function body<T extends object>(cls: new () => T, input: unknown): T {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('(body)', 'must be a JSON object');
  const { value, issues } = validateFields(cls, input, true);
  if (issues.length) throw invalid(issues[0].path.join('.') || '(body)', issues[0].message);
  return value;
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
    private readonly policy: GetPolicy,
    private readonly setRoute: SetPurposeRoute,
    private readonly removeRoute: RemovePurposeRoute,
    private readonly setBudget: SetGuildBudget,
    private readonly removeBudget: RemoveGuildBudget,
    private readonly spend: GetSpend,
    private readonly usage: GetUsage,
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
    return this.run(req, res, () => this.policy.run());
  }

  @Put('purposes/:purpose')
  putPurpose(
    @Req() req: Request,
    @Res() res: Response,
    @Param('purpose') purpose: string,
    @Body() input: unknown,
  ): Promise<void> {
    return this.run(req, res, () => this.setRoute.run(purpose, body(PurposeRoute, input)));
  }

  @Delete('purposes/:purpose')
  deletePurpose(
    @Req() req: Request,
    @Res() res: Response,
    @Param('purpose') purpose: string,
  ): Promise<void> {
    return this.run(req, res, () => this.removeRoute.run(purpose));
  }

  @Put('budgets/:guildId')
  putBudget(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Body() input: unknown,
  ): Promise<void> {
    return this.run(req, res, () => this.setBudget.run(guild, body(BudgetBody, input).usdPerDay));
  }

  @Delete('budgets/:guildId')
  deleteBudget(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
  ): Promise<void> {
    return this.run(req, res, () => this.removeBudget.run(guild));
  }

  @Get('spend/:guildId')
  getSpend(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Query('days') days?: string,
  ): Promise<void> {
    return this.run(req, res, () => this.spend.run(guild, days));
  }

  @Get('usage/:guildId')
  getUsage(
    @Req() req: Request,
    @Res() res: Response,
    @Param('guildId') guild: string,
    @Query('day') day?: string,
  ): Promise<void> {
    return this.run(req, res, () => this.usage.run(guild, day));
  }
}
