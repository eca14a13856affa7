import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';

/** Connections of the query lane: a search or a lens reads on at most a few at once. */
const QUERY_CONNECTIONS = 4;

const lane = new AsyncLocalStorage<PostgreSqlConnection>();

/** The query lane's connection when the calling code runs in the lane; undefined otherwise. */
export const laneConnection = (): PostgreSqlConnection | undefined => lane.getStore();

/**
 * Runs `fn` outside the query lane: background work a query starts (a guild's index load,
 * a catch-up, a vector refresh) takes the service's pool, not the lane's few connections.
 */
export const outsideLane = <T>(fn: () => T): T => lane.exit(fn);

/**
 * Searches and context reads on a Postgres pool of their own. The service's pool (10
 * connections) is shared by the ingest's transactions, moment batches, epoch closes,
 * dossier consolidations and index loads; under a live community's load a search's reads
 * queued behind dozens of their acquires (49 at once on the memory-scale bench). What runs
 * inside {@link QueryLane.run} reads through this lane's connections (`sql()` looks it up),
 * outside any transaction; writes and transactions stay on the service's pool.
 */
@Injectable()
export class QueryLane implements OnApplicationShutdown {
  private readonly connection: PostgreSqlConnection;

  constructor(em: EntityManager) {
    this.connection = new PostgreSqlConnection(
      em.config,
      {
        clientUrl: em.config.get('clientUrl'),
        driverOptions: { pool: { min: 0, max: QUERY_CONNECTIONS } },
      },
      'read',
    );
  }

  /** Runs a query's use case with its reads on the lane. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return lane.run(this.connection, fn);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}
