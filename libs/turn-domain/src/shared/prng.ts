/** Mulberry32: tiny, fast and good enough for ordering speakers; deterministic per seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, used to derive a replay-stable seed when a command does not bring one. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Fisher–Yates shuffle driven by `seed`; when `avoidFirst` lands first it is swapped with
 * another position, so the previous cycle's last speaker never opens the next one.
 */
export function seededShuffle<T>(
  items: readonly T[],
  seed: number,
  isAvoided: (item: T) => boolean = () => false,
): T[] {
  const out = [...items];
  const rnd = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  if (out.length > 1 && isAvoided(out[0])) {
    const j = 1 + Math.floor(rnd() * (out.length - 1));
    [out[0], out[j]] = [out[j], out[0]];
  }
  return out;
}
