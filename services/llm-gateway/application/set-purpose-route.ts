import { Injectable } from '@nestjs/common';
import type { PurposeRoute } from '@dirigent/llm';
import { invalid } from './invalid';
import { PurposeRoutes } from './ports';

const PURPOSE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Overrides one purpose's route; every model it names must be configured. */
@Injectable()
export class SetPurposeRoute {
  constructor(private readonly routes: PurposeRoutes) {}

  async run(purpose: string, route: PurposeRoute) {
    if (!PURPOSE.test(purpose)) throw invalid('purpose', 'must be a lowercase token');
    const problem = this.routes.validate(route);
    if (problem) throw invalid('model', problem);
    await this.routes.set(purpose, route);
    return { purpose, model: route.model, fallbacks: route.fallbacks };
  }
}
