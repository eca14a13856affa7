/**
 * The part of `pg` (installed with @mikro-orm/postgresql) the gateway uses; the package
 * ships no types and `@types/pg` is not a dependency.
 */
declare module 'pg' {
  export interface QueryResult<R = Record<string, unknown>> {
    rows: R[];
    rowCount: number | null;
  }
  export interface QueryConfig {
    /** Prepared once per connection under this name. */
    name?: string;
    text: string;
    values?: unknown[];
  }
  export interface PoolClient {
    query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
    release(err?: Error | boolean): void;
  }
  export interface PoolConfig {
    connectionString?: string;
    max?: number;
    idleTimeoutMillis?: number;
    options?: string;
    application_name?: string;
  }
  export class Pool {
    constructor(config?: PoolConfig);
    query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
    query<R = Record<string, unknown>>(config: QueryConfig): Promise<QueryResult<R>>;
    connect(): Promise<PoolClient>;
    end(): Promise<void>;
    on(event: 'error', listener: (err: Error) => void): this;
  }
}
