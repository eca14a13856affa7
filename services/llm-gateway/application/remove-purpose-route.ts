import { Injectable } from '@nestjs/common';
import { PurposeRoutes } from './ports';

/** Drops a purpose's override: the configuration's route (if any) applies again. */
@Injectable()
export class RemovePurposeRoute {
  constructor(private readonly routes: PurposeRoutes) {}

  async run(purpose: string) {
    return { removed: await this.routes.remove(purpose) };
  }
}
