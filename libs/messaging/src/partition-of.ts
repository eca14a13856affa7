/**
 * The partition of a channel: FNV-1a (32 bits) of its id, modulo the partition count. Every
 * replica computes it from the channel id alone (no publisher, subject or server mapping is
 * involved), so all replicas agree on which partition, and therefore which replica, serves a
 * channel.
 *
 * @example
 * partitionOf('1180000000000000001', 6); // 0..5, the same on every replica
 */
export function partitionOf(channelId: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new Error(`partitions must be a positive integer, got ${partitions}`);
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < channelId.length; i++) {
    h ^= channelId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}
