export interface ControlWebOptions {
  /** `DIRIGENT_CONTROL_TOKEN`; without it the page and its API answer 503. */
  token?: string;
  /**
   * `DIRIGENT_CONTROL_ACTOR_USER_ID`: the Discord member the control token stands for, the
   * actor of every decision made on the page (never a value the browser sends). Unset, the
   * page decides nothing on anyone's behalf.
   */
  actorUserId?: string;
  /** padded-cell's `ego.json`: the Re-scan button shows only when it is detected. */
  egoFile?: string;
}

export const CONTROL_WEB_OPTIONS = Symbol('CONTROL_WEB_OPTIONS');
