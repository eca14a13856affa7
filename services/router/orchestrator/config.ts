import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import type { OrchestratorSettings } from '@dirigent/orchestrator';

/** `orchestrator.agents.coding`: the CLI run for `delegate_to_coding`. */
export class CodingAgentConfig {
  @IsBoolean() enabled = true;
  /** A name on the PATH or a path, e.g. `opencode`, `claude`, `codex`. */
  @IsString() @IsNotEmpty() binary = 'opencode';
  /** `{task}` is replaced by the task inside each element; there is no shell. */
  @IsArray() @ArrayMaxSize(64) @IsString({ each: true }) args: string[] = ['run', '{task}'];
  @IsInt() @Min(1000) @Max(3_600_000) timeoutMs = 300_000;
  /** For the run log only: the model the CLI itself is set up with. */
  @IsOptional() @IsString() model?: string;
}

/** `orchestrator.agents.research` / `.general`: gateway-backed agents. */
export class ModelAgentConfig {
  @IsBoolean() enabled = true;
}

export class OrchestratorAgentsConfig {
  @IsObject()
  @ValidateNested()
  @Type(() => CodingAgentConfig)
  coding: CodingAgentConfig = new CodingAgentConfig();
  @IsObject()
  @ValidateNested()
  @Type(() => ModelAgentConfig)
  research: ModelAgentConfig = new ModelAgentConfig();
  @IsObject()
  @ValidateNested()
  @Type(() => ModelAgentConfig)
  general: ModelAgentConfig = new ModelAgentConfig();
}

/**
 * The `orchestrator` block of `DIRIGENT_ROUTER_CONFIG` (docs/architecture.md, "Router
 * configuration"); every key is optional.
 *
 * @example
 * orchestrator:
 *   parallelExecution: true
 *   maxParallelAgents: 3
 *   agents:
 *     coding: { enabled: true, binary: opencode, args: [run, '{task}'], timeoutMs: 300000 }
 */
export class OrchestratorConfig {
  @IsBoolean() parallelExecution = true;
  @IsInt() @Min(1) @Max(16) maxParallelAgents = 3;
  @IsObject()
  @ValidateNested()
  @Type(() => OrchestratorAgentsConfig)
  agents: OrchestratorAgentsConfig = new OrchestratorAgentsConfig();
}

export const DEFAULT_WORKSPACE = '.dirigent/workspace';

/** What the orchestrator module needs from the hosting service's configuration. */
export interface OrchestratorModuleOptions {
  /** Absent: the defaults above. */
  orchestrator?: OrchestratorConfig;
  /** `DIRIGENT_WORKSPACE` (default `.dirigent/workspace`). */
  workspace?: string;
  /** Offer the skill catalog to the orchestrator model (`DIRIGENT_ROUTER_SKILLS`; default on). */
  skills?: boolean;
}

export function orchestratorSettings(o: OrchestratorModuleOptions): OrchestratorSettings {
  const c = o.orchestrator ?? new OrchestratorConfig();
  return {
    parallelExecution: c.parallelExecution,
    maxParallelAgents: c.maxParallelAgents,
    workspace: o.workspace || DEFAULT_WORKSPACE,
    agents: {
      coding: { ...c.agents.coding },
      research: { ...c.agents.research },
      general: { ...c.agents.general },
    },
  };
}
