export interface ControlWebOptions {
  /** `DIRIGENT_CONTROL_TOKEN`; without it the page and its API answer 503. */
  token?: string;
  /** padded-cell's `ego.json`: the Re-scan button shows only when it is detected. */
  egoFile?: string;
}

export const CONTROL_WEB_OPTIONS = Symbol('CONTROL_WEB_OPTIONS');
