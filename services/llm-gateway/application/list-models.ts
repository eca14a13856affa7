import { Injectable } from '@nestjs/common';
import { GatewayError, LlmGateway } from '@dirigent/llm';

type ModelList = ReturnType<LlmGateway['listModels']>;

/** The configured models and every purpose as `purpose:<name>`. */
@Injectable()
export class ListModels {
  constructor(private readonly gateway: LlmGateway) {}

  run(): ModelList {
    return this.gateway.listModels();
  }

  one(id: string): ModelList['data'][number] {
    const model = this.gateway.listModels().data.find((m) => m.id === id);
    if (!model)
      throw new GatewayError(
        404,
        'invalid_request_error',
        'model_not_found',
        `The model \`${id}\` does not exist`,
        'model',
      );
    return model;
  }
}
