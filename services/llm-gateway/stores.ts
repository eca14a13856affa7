import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { LLM_USAGE_EVENT, Subjects } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import {
  microsToUsd,
  type BudgetStore,
  type LlmConfig,
  type Micros,
  type PolicySource,
  type PurposeRoute,
  type ReserveResult,
  type UsageRecord,
  type UsageSink,
} from '@dirigent/llm';

/** The `llm_guild_budget` row that holds the run-time default for every guild. */
export const DEFAULT_BUDGET_ROW = '*';

type Row = Record<string, unknown>;

/** Raw SQL over MikroORM's connection: these statements are the atomicity, so no ORM unit of work. */
export class Sql {
  constructor(private readonly orm: MikroORM) {}
  async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.orm.em.getConnection().execute(sql, params, 'all')) as Row[];
  }
}

const LIMIT_MICROS = `coalesce(
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = ?),
  ?::bigint,
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = '${DEFAULT_BUDGET_ROW}'),
  ?::bigint)`;

/**
 * Budgets in Postgres, one row per guild and UTC day. A reservation is one conditional
 * UPDATE: Postgres re-checks the WHERE clause on the locked row, so concurrent requests
 * and any number of gateway replicas can never admit more than the limit.
 */
export class PgBudgetStore implements BudgetStore {
  constructor(private readonly sql: Sql) {}

  async reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<ReserveResult> {
    const limitParams = [guildId, configured.guildMicros ?? null, configured.defaultMicros];
    const update = `update llm_guild_spend set reserved_micros = reserved_micros + ?, updated_at = now()
      where guild_id = ? and day = ? and spent_micros + reserved_micros + ? <= ${LIMIT_MICROS}
      returning 1 as ok`;
    const params = [micros, guildId, day, micros, ...limitParams];
    let admitted = await this.sql.rows(update, params);
    if (!admitted.length) {
      const created = await this.sql.rows(
        `insert into llm_guild_spend (guild_id, day) values (?, ?) on conflict do nothing returning 1 as ok`,
        [guildId, day],
      );
      if (created.length) admitted = await this.sql.rows(update, params);
    }
    if (admitted.length) return { ok: true };
    const [row] = await this.sql.rows(
      `select spent_micros, reserved_micros, ${LIMIT_MICROS} as limit_micros
       from llm_guild_spend where guild_id = ? and day = ?`,
      [...limitParams, guildId, day],
    );
    return {
      ok: false,
      spentMicros: Number(row?.spent_micros ?? 0),
      reservedMicros: Number(row?.reserved_micros ?? 0),
      limitMicros: Number(row?.limit_micros ?? 0),
    };
  }

  async settle(guildId: string, day: string, reserved: Micros, actual: Micros): Promise<void> {
    await this.sql.rows(
      `insert into llm_guild_spend (guild_id, day, spent_micros) values (?, ?, ?)
       on conflict (guild_id, day) do update set
         reserved_micros = greatest(0, llm_guild_spend.reserved_micros - ?),
         spent_micros = llm_guild_spend.spent_micros + excluded.spent_micros,
         updated_at = now()`,
      [guildId, day, actual, reserved],
    );
  }

  /** Spend per day for a guild, newest first, with the limit that applies. */
  async spend(
    guildId: string,
    days: number,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<{ day: string; spentUsd: number; reservedUsd: number; limitUsd: number }[]> {
    const [limit] = await this.sql.rows(`select ${LIMIT_MICROS} as limit_micros`, [
      guildId,
      configured.guildMicros ?? null,
      configured.defaultMicros,
    ]);
    const rows = await this.sql.rows(
      `select to_char(day, 'YYYY-MM-DD') as day, spent_micros, reserved_micros from llm_guild_spend
       where guild_id = ? order by day desc limit ?`,
      [guildId, days],
    );
    return rows.map((r) => ({
      day: String(r.day),
      spentUsd: microsToUsd(Number(r.spent_micros)),
      reservedUsd: microsToUsd(Number(r.reserved_micros)),
      limitUsd: microsToUsd(Number(limit.limit_micros)),
    }));
  }
}

/**
 * The purpose policy: the configuration file's purposes overridden by `llm_purpose_policy`
 * rows. Cached and refreshed every `refreshMs`, so the request path never waits on it;
 * an admin write refreshes this replica at once.
 */
@Injectable()
export class PolicyStore implements PolicySource, OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('llm-gateway:policy');
  private effective: Record<string, PurposeRoute>;
  private overrides: Record<string, PurposeRoute> = {};
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sql: Sql,
    private readonly config: LlmConfig,
    private readonly refreshMs = 2_000,
  ) {
    this.effective = { ...config.purposes };
  }

  purposes(): Record<string, PurposeRoute> {
    return this.effective;
  }

  overridden(): Record<string, PurposeRoute> {
    return this.overrides;
  }

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** An override is only valid when every model it names is configured. */
  validate(route: PurposeRoute): string | undefined {
    const known = new Set(this.config.models.map((m) => m.id));
    const unknown = [route.model, ...route.fallbacks].filter((id) => !known.has(id));
    return unknown.length ? `unknown model(s): ${unknown.join(', ')}` : undefined;
  }

  async refresh(): Promise<void> {
    const rows = await this.sql.rows(`select purpose, model, fallbacks from llm_purpose_policy`);
    const overrides: Record<string, PurposeRoute> = {};
    for (const r of rows) {
      const route = { model: String(r.model), fallbacks: (r.fallbacks as string[]) ?? [] };
      const problem = this.validate(route);
      if (problem) this.log.warn(`ignoring policy for ${String(r.purpose)}: ${problem}`);
      else overrides[String(r.purpose)] = route;
    }
    this.overrides = overrides;
    this.effective = { ...this.config.purposes, ...overrides };
  }

  async set(purpose: string, route: PurposeRoute): Promise<void> {
    await this.sql.rows(
      `insert into llm_purpose_policy (purpose, model, fallbacks) values (?, ?, ?::jsonb)
       on conflict (purpose) do update set model = excluded.model, fallbacks = excluded.fallbacks, updated_at = now()`,
      [purpose, route.model, JSON.stringify(route.fallbacks)],
    );
    await this.refresh();
  }

  async remove(purpose: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `delete from llm_purpose_policy where purpose = ? returning 1 as ok`,
      [purpose],
    );
    await this.refresh();
    return rows.length > 0;
  }
}

/** Guild budgets set at run time (`llm_guild_budget`), over the configuration file's. */
export class GuildBudgets {
  constructor(private readonly sql: Sql) {}

  async list(): Promise<Record<string, number>> {
    const rows = await this.sql.rows(`select guild_id, usd_per_day from llm_guild_budget`);
    return Object.fromEntries(rows.map((r) => [String(r.guild_id), Number(r.usd_per_day)]));
  }

  async set(guildId: string, usdPerDay: number): Promise<void> {
    await this.sql.rows(
      `insert into llm_guild_budget (guild_id, usd_per_day) values (?, ?)
       on conflict (guild_id) do update set usd_per_day = excluded.usd_per_day, updated_at = now()`,
      [guildId, usdPerDay],
    );
  }

  async remove(guildId: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `delete from llm_guild_budget where guild_id = ? returning 1 as ok`,
      [guildId],
    );
    return rows.length > 0;
  }
}

/**
 * Writes each usage record to the `llm_usage` ledger and publishes it on
 * `dirigent.llm.usage`, off the request path; `drain()` waits for the writes.
 */
@Injectable()
export class UsageLedger implements UsageSink {
  private readonly log = new Logger('llm-gateway:usage');
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly sql: Sql,
    private readonly messaging: Messaging,
  ) {}

  record(u: UsageRecord): void {
    const p = this.write(u)
      .catch((e: Error) => this.log.error(`usage record ${u.id} failed: ${e.message}`))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  private async write(u: UsageRecord): Promise<void> {
    await this.sql.rows(
      `insert into llm_usage (id, at, guild_id, purpose, kind, stream, requested_model, model, provider,
        input_tokens, output_tokens, reserved_usd, cost_usd, latency_ms, outcome, error, fallbacks, attempts)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
      [
        u.id,
        u.at,
        u.guildId,
        u.purpose,
        u.kind,
        u.stream,
        u.requestedModel,
        u.model,
        u.provider,
        u.inputTokens,
        u.outputTokens,
        u.reservedUsd,
        u.costUsd,
        u.latencyMs,
        u.outcome,
        u.error ?? null,
        JSON.stringify(u.fallbacks),
        u.attempts,
      ],
    );
    await this.messaging.publishEvent(Subjects.llm.usage, LLM_USAGE_EVENT, u, {
      id: `llm-usage:${u.id}`,
    });
  }

  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}
