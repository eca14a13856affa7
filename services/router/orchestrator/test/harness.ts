import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
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
import { routerEntities } from '../../adapters/postgres/entities';
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
  @Module({
    imports: [
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
