import type { Decider } from '../src/command-handler';

/** Every command appends its number: a commit applied twice or skipped shows in `items`. */
export type Appended = { type: 'Appended'; data: { n: number } };
export interface Items {
  items: number[];
}
/** A decider for the event store's own tests. */
export const appendingDecider: Decider<{ n: number }, Appended, Items> = {
  initialState: () => ({ items: [] }),
  decide: (c) => [{ type: 'Appended', data: { n: c.n } }],
  evolve: (s, e) => ({ items: [...s.items, e.data.n] }),
};
