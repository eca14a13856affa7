import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '@dirigent/messaging';

/** Grants published by this replica's reactor (a redelivered commit publishes the same id). */
export const grantsPublished = new Counter({
  name: 'dirigent_turn_grants_total',
  help: 'Turn grants published (turn.granted), by the replica that performed the commit',
  registers: [metricsRegistry],
});

let partitions: { total: number; owned: () => number } | undefined;

new Gauge({
  name: 'dirigent_coordinator_partitions',
  help: 'Channel partitions configured (DIRIGENT_COORDINATOR_PARTITIONS); 0 when unpartitioned',
  registers: [metricsRegistry],
  collect() {
    this.set(partitions?.total ?? 0);
  },
});

new Gauge({
  name: 'dirigent_coordinator_partitions_owned',
  help: 'Channel partitions whose lease this replica holds',
  registers: [metricsRegistry],
  collect() {
    this.set(partitions?.owned() ?? 0);
  },
});

/** Where the partition gauges read from (the replica's leases). */
export function reportPartitions(total: number, owned: () => number): void {
  partitions = { total, owned };
}
