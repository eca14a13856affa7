import { channelRoutes } from './channels';
import { commandRoutes } from './commands';
import { guildRoutes } from './guilds';
import { interactionRoutes } from './interactions';
import { messageRoutes } from './messages';
import { pinRoutes } from './pins';
import { reactionRoutes } from './reactions';
import { roleRoutes } from './roles';
import { threadRoutes } from './threads';
import type { Route } from './route';
import { userRoutes } from './users';
import { webhookRoutes } from './webhooks';

export { findRoute, type RestAnswer, type RestRequest, type Route } from './route';

/** The REST API v10 subset of the local Discord, by resource. */
export const restRoutes: Route[] = [
  ...userRoutes,
  ...guildRoutes,
  ...roleRoutes,
  ...channelRoutes,
  ...pinRoutes,
  ...threadRoutes,
  ...messageRoutes,
  ...reactionRoutes,
  ...webhookRoutes,
  ...interactionRoutes,
  ...commandRoutes,
];
