import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Global, Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { INestApplication } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { StreamSpecs } from '@dirigent/contracts';
import {
  BaseConfig,
  EnvPort,
  startServiceApp,
  type ServiceDefinition,
} from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { PostgresDecisionLog } from '../../adapters/postgres/decision.repository';
import { routerEntities } from '../../adapters/postgres/entities';
import { DecisionLog } from '../../application/stores';
import { RouterService } from '../../router.module';
import { OrchestratorConfig } from '../config';
import { orchestratorEntities, OrchestratorModule } from '../orchestrator.module';

export const FAKE_CLI = join(__dirname, 'fixtures', 'fake-cli.sh');

class HostConfig extends BaseConfig {
  @EnvPort() HOST_PORT = 0;
  @IsOptional() @IsString() DIRIGENT_WORKSPACE?: string;
}

/** The orchestrator block of a test: the fake CLI as the coding agent. */
export function testOrchestratorConfig(
  over: {
    parallelExecution?: boolean;
    maxParallelAgents?: number;
    timeoutMs?: number;
    binary?: string;
    codingEnabled?: boolean;
  } = {},
): OrchestratorConfig {
  const c = new OrchestratorConfig();
  c.parallelExecution = over.parallelExecution ?? true;
  c.maxParallelAgents = over.maxParallelAgents ?? 3;
  c.agents.coding.binary = over.binary ?? FAKE_CLI;
  c.agents.coding.args = ['run', '{task}'];
  c.agents.coding.timeoutMs = over.timeoutMs ?? 60_000;
  c.agents.coding.enabled = over.codingEnabled ?? true;
  return c;
}

/** A minimal host service around the orchestrator module (what the router does with one import). */
export async function startOrchestrator(
  orchestrator: OrchestratorConfig,
): Promise<{ app: INestApplication; workspace: string; close(): Promise<void> }> {
  const workspace = mkdtempSync(join(tmpdir(), 'orch-int-'));
  /** The decision log a host provides (the router's `RouterSharedModule` in the service). */
  @Global()
  @Module({
    providers: [
      {
        provide: DecisionLog,
        inject: [EntityManager],
        useFactory: (em: EntityManager) => new PostgresDecisionLog(em),
      },
    ],
    exports: [DecisionLog],
  })
  class HostDecisionLog {}
  @Module({
    imports: [
      HostDecisionLog,
      OrchestratorModule.forRoot((c: HostConfig) => ({
        orchestrator,
        workspace: c.DIRIGENT_WORKSPACE,
      })),
    ],
  })
  class HostModule {}
  const def: ServiceDefinition<HostConfig> = {
    name: 'orchestrator-host',
    portEnv: 'HOST_PORT',
    defaultPort: 0,
    config: HostConfig,
    streams: [StreamSpecs.discordCommands],
    entities: [...routerEntities, ...orchestratorEntities],
    module: () => HostModule,
  };
  const { app } = await startServiceApp(def, {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    HOST_PORT: '0',
    DIRIGENT_WORKSPACE: workspace,
  });
  return { app, workspace, close: () => app.close() };
}

/**
 * The router service with a Molt (`molt`, optionally with its own account) and the fake CLI
 * as its coding agent; `agents` and `extra` are more YAML lines of its configuration.
 */
export async function startRouterWithMolt(
  o: { moltUserId?: string; agents?: string[]; extra?: string[]; orchestrator?: string[] } = {},
): Promise<{ router: INestApplication; workspace: string }> {
  const workspace = mkdtempSync(join(tmpdir(), 'router-molt-'));
  const yaml = join(workspace, 'router.yaml');
  const account = o.moltUserId ? ` discordUserId: '${o.moltUserId}',` : '';
  writeFileSync(
    yaml,
    [
      'agents:',
      ...(o.agents ?? []),
      `  - { id: molt,${account} name: Molt, orchestrator: true }`,
      ...(o.extra ?? []),
      'orchestrator:',
      ...(o.orchestrator ?? []),
      '  agents:',
      `    coding: { enabled: true, binary: '${FAKE_CLI}', args: [run, '{task}'], timeoutMs: 60000 }`,
    ].join('\n'),
  );
  const { app } = await startServiceApp(RouterService, {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: 'silent',
    ROUTER_PORT: '0',
    DIRIGENT_ROUTER_CONFIG: yaml,
    DIRIGENT_WORKSPACE: workspace,
    DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '500',
  });
  return { router: app, workspace };
}
