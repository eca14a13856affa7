import type { Route } from './route';

const pin = (method: string, path: string, pinned: boolean): Route => ({
  method,
  path,
  run: (fake, { seg }) => {
    fake.admin.setPinned(seg[1], seg.at(-1)!, pinned);
    return [204];
  },
});

/** Pins and unpins, on today's route and the older one. */
export const pinRoutes: Route[] = [
  pin('PUT', '/channels/:c/messages/pins/:m', true),
  pin('DELETE', '/channels/:c/messages/pins/:m', false),
  pin('PUT', '/channels/:c/pins/:m', true),
  pin('DELETE', '/channels/:c/pins/:m', false),
];
