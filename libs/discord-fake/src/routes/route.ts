import type { FakeDiscord } from '../fake-discord';

/** One REST request as a route sees it: path segments, query and parsed JSON body. */
export interface RestRequest {
  seg: string[];
  query: URLSearchParams;
  body: any;
}

/** Status and JSON body (none for 204). */
export type RestAnswer = [number, unknown?];

export interface Route {
  method: string;
  /** `/channels/:c/messages`: `:x` matches any one segment. */
  path: string;
  run(fake: FakeDiscord, req: RestRequest): RestAnswer;
}

/** The first route whose method and pattern match, in table order. */
export function findRoute(routes: Route[], method: string, seg: string[]): Route | undefined {
  return routes.find((r) => {
    if (r.method !== method) return false;
    const p = r.path.split('/').filter(Boolean);
    return p.length === seg.length && p.every((s, i) => s.startsWith(':') || s === seg[i]);
  });
}
