import { IsOptional, IsString, MinLength } from 'class-validator';
import { BaseConfig, EnvPort, type DerivedConfig } from '@dirigent/service-kit';
import { llmFromEnvironment, loadLlmConfig, type LlmConfig } from '@dirigent/llm';

const TOKEN = { message: '$property must be at least 16 characters' };

/**
 * The gateway's environment: the base settings, `LLM_GATEWAY_PORT`, the tokens, and
 * `DIRIGENT_LLM_CONFIG` loaded and validated at boot together with every provider key
 * it names (keys are read here, from the variables the file names, and nowhere else).
 * Without that file, the providers whose variables are set (`llmFromEnvironment`:
 * `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`), else the offline models.
 */
export class LlmGatewayConfig extends BaseConfig implements DerivedConfig {
  @EnvPort() LLM_GATEWAY_PORT = 3005;
  @IsOptional() @IsString() DIRIGENT_LLM_CONFIG?: string;
  @IsOptional() @MinLength(16, TOKEN) DIRIGENT_GATEWAY_TOKEN?: string;
  @IsOptional() @MinLength(16, TOKEN) DIRIGENT_CONTROL_TOKEN?: string;
  llm: LlmConfig;
  providerKeys: Record<string, string> = {};

  derive(env: NodeJS.ProcessEnv): string[] {
    try {
      this.llm = this.DIRIGENT_LLM_CONFIG
        ? loadLlmConfig(this.DIRIGENT_LLM_CONFIG)
        : llmFromEnvironment(env).config;
    } catch (e) {
      return [`${this.DIRIGENT_LLM_CONFIG ? 'DIRIGENT_LLM_CONFIG ' : ''}${(e as Error).message}`];
    }
    const problems: string[] = [];
    for (const p of this.llm.providers) {
      if (!p.apiKeyEnv) continue;
      const key = env[p.apiKeyEnv];
      if (key) this.providerKeys[p.apiKeyEnv] = key;
      else problems.push(`${p.apiKeyEnv} is not set (the API key of provider ${p.id})`);
    }
    return problems;
  }
}
