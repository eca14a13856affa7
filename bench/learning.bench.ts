/**
 * `npm run bench -- learning`: a simulated community teaching Dit through the pure learning
 * core of `@dirigent/router-domain` (the code the router runs: one signal per member per
 * message, the daily cap, bounds, decay, the room's judgements). 20 members with fixed
 * tastes by the room's mood — jokes liked in a lull, disliked in heated talk; deep answers
 * liked in heated (serious) talk; staying quiet liked in a busy room — three of them noisy
 * (coin-flip reactions). A line the room did not engage with is `ignored`; a silent turn is
 * judged `silent-ok` or `silent-missed` by the room. After 1,000 of Dit's turns the learned
 * weights should rank the dispositions as the members' tastes do in every context class
 * (Spearman ≥ 0.8); a brigading member's 200 reactions in one day should move no weight by
 * more than 5 steps.
 */
import {
  CONTEXT_CLASSES,
  decayed,
  effectiveWeights,
  memberSignal,
  seededRandom,
  type ContextClass,
  type MemberSignalState,
  type SignalKind,
} from '@dirigent/router-domain';
import type { BenchResult } from './stats';

const DISPOSITIONS = ['joke', 'pun', 'deep', 'factual', 'brief', 'hype', 'quiet'] as const;
type D = (typeof DISPOSITIONS)[number];

/** The community's taste: how much a disposition's line pleases the room in each mood (−1..1). */
const TASTE: Record<ContextClass, Record<D, number>> = {
  lull: { joke: 0.8, pun: 0.5, hype: 0.2, brief: -0.1, quiet: -0.2, factual: -0.3, deep: -0.6 },
  casual: { joke: 0.5, pun: 0.2, factual: 0.1, brief: -0.1, quiet: -0.2, hype: -0.3, deep: -0.5 },
  busy: { quiet: 0.7, brief: 0.6, factual: 0.3, joke: 0, hype: -0.2, pun: -0.4, deep: -0.7 },
  heated: { deep: 0.8, factual: 0.5, quiet: 0.3, brief: 0.1, hype: -0.4, pun: -0.6, joke: -0.8 },
};
const LEARNING = { enabled: true, rate: 0.05, bounds: [0.2, 3] as [number, number] };
const DAILY_CAP = 5;
const HALF_LIFE_MS = 14 * 86_400_000;
const TURNS = 1000;
const TURNS_PER_DAY = 50;
const MEMBERS = 20;
const NOISY = 3;
const REACT_P = 0.25;
/** How often the room ignores a line it does not like at all (scaled by its taste). */
const IGNORED_P = 0.6;

/** Spearman's rank correlation (average ranks for ties). */
export function spearman(a: number[], b: number[]): number {
  const rank = (xs: number[]) => {
    const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
    const r = new Array<number>(xs.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [ra, rb] = [rank(a), rank(b)];
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const [ma, mb] = [mean(ra), mean(rb)];
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return da && db ? num / Math.sqrt(da * db) : 0;
}

/** One simulated community; `brigadeDay` adds a member who reacts 👎 200 times that day. */
export function simulate(seed: string, brigadeDay?: number) {
  const rnd = seededRandom(seed);
  const adj = new Map<string, { adjustment: number; at: number }>();
  const rows = new Map<string, MemberSignalState>();
  const today = new Map<string, number>();
  const brigaderSteps = new Map<string, number>();
  const key = (c: ContextClass, d: D) => `${c}/${d}`;
  const pick = (weights: Record<string, number>) => {
    const total = DISPOSITIONS.reduce((s, d) => s + (weights[d] ?? 1), 0);
    let r = rnd() * total;
    for (const d of DISPOSITIONS) if ((r -= weights[d] ?? 1) <= 0) return d;
    return DISPOSITIONS[DISPOSITIONS.length - 1];
  };
  const signal = (
    member: string,
    messageId: string,
    c: ContextClass,
    d: D,
    polarity: 'positive' | 'negative',
    emoji: string | undefined,
    at: number,
    kind: SignalKind = 'reaction',
  ) => {
    const room = member === 'room';
    const k = key(c, d);
    const cur = adj.get(k);
    const day = `${member}/${Math.floor(at / 86_400_000)}`;
    const r = memberSignal({
      current: rows.get(`${messageId}/${member}`) ?? null,
      input: { type: 'add', kind, polarity, ...(emoji ? { emoji } : {}) },
      today: today.get(day) ?? 0,
      dailyCap: room ? Infinity : DAILY_CAP,
      baseline: 1,
      adjustment: cur ? decayed(cur.adjustment, at - cur.at, HALF_LIFE_MS) : 0,
      learning: LEARNING,
    });
    if (!r) return;
    if (!rows.has(`${messageId}/${member}`)) today.set(day, (today.get(day) ?? 0) + 1);
    rows.set(`${messageId}/${member}`, r.row);
    adj.set(k, { adjustment: r.adjustment, at });
    if (member === 'brigader')
      brigaderSteps.set(k, (brigaderSteps.get(k) ?? 0) + Math.abs(r.delta) / LEARNING.rate);
  };
  const weightsAt = (c: ContextClass, at: number) => {
    const a: Record<string, number> = {};
    for (const d of DISPOSITIONS) {
      const x = adj.get(key(c, d));
      if (x) a[d] = decayed(x.adjustment, at - x.at, HALF_LIFE_MS);
    }
    return effectiveWeights({}, a, LEARNING.bounds);
  };
  const sent: { id: string; c: ContextClass; d: D; at: number }[] = [];
  for (let t = 0; t < TURNS; t++) {
    const at = Math.floor((t * 86_400_000) / TURNS_PER_DAY);
    const c = CONTEXT_CLASSES[Math.floor(rnd() * CONTEXT_CLASSES.length)];
    const d = pick(weightsAt(c, at));
    const id = `m${t}`;
    sent.push({ id, c, d, at });
    // The room's judgement after the window: a quiet turn was missed or fine; a line
    // nobody picked up (more likely the less the room likes it) was ignored.
    const liking = (1 + TASTE[c][d]) / 2;
    if (d === 'quiet') {
      const ok = rnd() < liking;
      const kind = ok ? 'silent-ok' : 'silent-missed';
      signal('room', id, c, d, ok ? 'positive' : 'negative', undefined, at + 600_000, kind);
    } else {
      if (rnd() < IGNORED_P * (1 - liking))
        signal('room', id, c, d, 'negative', undefined, at + 600_000, 'ignored');
      for (let m = 0; m < MEMBERS; m++) {
        if (rnd() >= REACT_P) continue;
        const liked = m < NOISY ? 0.5 : liking;
        const positive = rnd() < liked;
        // Some members pile several emojis on a line they like: still one signal.
        const emojis = positive ? ['👍', '😂', '🔥'].slice(0, 1 + Math.floor(rnd() * 3)) : ['👎'];
        for (const e of emojis)
          signal(`u${m}`, id, c, d, positive ? 'positive' : 'negative', e, at + 60_000);
      }
    }
    if (brigadeDay !== undefined && Math.floor(at / 86_400_000) === brigadeDay) {
      // 200 👎-like reactions on the day's jokes (several emojis each): one target weight.
      const day = sent.filter(
        (x) => Math.floor(x.at / 86_400_000) === brigadeDay && x.d !== 'quiet',
      );
      const jokes = day.filter((x) => x.d === 'joke');
      const todays = jokes.length ? jokes : day;
      if (t % TURNS_PER_DAY === TURNS_PER_DAY - 1)
        for (let i = 0; i < 200; i++) {
          const x = todays[i % todays.length];
          signal('brigader', x.id, x.c, x.d, 'negative', ['👎', '🤮', '😡', '💩'][i % 4], at);
        }
    }
  }
  const end = Math.floor((TURNS * 86_400_000) / TURNS_PER_DAY);
  const perClass = Object.fromEntries(
    CONTEXT_CLASSES.map((c) => {
      const w = weightsAt(c, end);
      return [
        c,
        spearman(
          DISPOSITIONS.map((d) => w[d] ?? 1),
          DISPOSITIONS.map((d) => TASTE[c][d]),
        ),
      ];
    }),
  ) as Record<ContextClass, number>;
  return { perClass, brigaderMaxSteps: Math.max(0, ...brigaderSteps.values()) };
}

export async function benchLearning(): Promise<BenchResult> {
  const plain = simulate('learning-bench');
  const brigaded = simulate('learning-bench', 5);
  const out: BenchResult = {};
  for (const c of CONTEXT_CLASSES)
    out[`spearman ${c} (target ≥ 0.8)`] = plain.perClass[c].toFixed(2);
  out['brigader 200 reactions: max steps on one weight (target ≤ 5)'] = brigaded.brigaderMaxSteps;
  for (const c of CONTEXT_CLASSES)
    out[`spearman ${c} with the brigade`] = brigaded.perClass[c].toFixed(2);
  return out;
}
