import { Controller, Get, Header, HttpCode, HttpStatus, Res } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Response } from 'express';
import { NatsClient, metricsRegistry } from '@dirigent/messaging';

/** `GET /healthz` (NATS and Postgres reachable) and `GET /metrics` (Prometheus). */
@Controller()
export class HealthController {
  constructor(
    private readonly nats: NatsClient,
    private readonly orm: MikroORM,
  ) {}

  @Get('healthz')
  async health(@Res() res: Response): Promise<void> {
    const [nats, postgres] = await Promise.all([
      this.nats.ping().then(
        () => 'up',
        () => 'down',
      ),
      this.orm.em
        .fork()
        .getConnection()
        .execute('select 1')
        .then(
          () => 'up',
          () => 'down',
        ),
    ]);
    const healthy = nats === 'up' && postgres === 'up';
    res.status(healthy ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json({
      status: healthy ? 'ok' : 'unavailable',
      nats,
      postgres,
    });
  }

  @Get('metrics')
  @HttpCode(200)
  @Header('Content-Type', metricsRegistry.contentType)
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}
