import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LlmConfig, PolicySource, PurposeRoute } from '@dirigent/llm';
import type { PurposeRoutes } from '../application/ports';
import { PurposePolicy } from './postgres/purpose-policy.entity';

/**
 * The purpose policy: the configuration file's purposes overridden by `llm_purpose_policy`
 * rows. Cached and refreshed every `refreshMs`, so the request path never waits on it;
 * an admin write refreshes this replica at once.
 */
export class PolicyStore
  implements PolicySource, PurposeRoutes, OnModuleInit, OnApplicationShutdown
{
  private readonly log = new Logger('llm-gateway:policy');
  private effective: Record<string, PurposeRoute>;
  private overrides: Record<string, PurposeRoute> = {};
  private readonly warned = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly em: EntityManager,
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

  validate(route: PurposeRoute): string | undefined {
    const known = new Set(this.config.models.map((m) => m.id));
    const unknown = [route.model, ...route.fallbacks].filter((id) => !known.has(id));
    return unknown.length ? `unknown model(s): ${unknown.join(', ')}` : undefined;
  }

  async refresh(): Promise<void> {
    const rows = await this.em.fork().getRepository(PurposePolicy).findAll();
    const overrides: Record<string, PurposeRoute> = {};
    for (const r of rows) {
      const route = { model: r.model, fallbacks: r.fallbacks ?? [] };
      const problem = this.validate(route);
      if (!problem) overrides[r.purpose] = route;
      else if (!this.warned.has(`${r.purpose}:${problem}`)) {
        this.warned.add(`${r.purpose}:${problem}`);
        this.log.warn(`ignoring policy for ${r.purpose}: ${problem}`);
      }
    }
    this.overrides = overrides;
    this.effective = { ...this.config.purposes, ...overrides };
  }

  async set(purpose: string, route: PurposeRoute): Promise<void> {
    await this.em.fork().getRepository(PurposePolicy).put(purpose, route);
    await this.refresh();
  }

  async remove(purpose: string): Promise<boolean> {
    const removed = await this.em.fork().getRepository(PurposePolicy).delete(purpose);
    await this.refresh();
    return removed;
  }
}
