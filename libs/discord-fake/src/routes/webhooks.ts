import { HttpError, notFound } from '../http-error';
import { webhookJson } from '../serialize';
import { answerInteraction } from './interactions';
import type { Route } from './route';

/** Channel webhooks (list, create) and executing one by its token. */
export const webhookRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:c/webhooks',
    run: (fake, { seg }) => {
      fake.channel(seg[1]);
      const hooks = [...fake.webhooks.values()].filter((w) => w.channelId === seg[1]);
      return [200, hooks.map((w) => webhookJson(w, fake.users.get(w.creatorId), true))];
    },
  },
  {
    method: 'POST',
    path: '/channels/:c/webhooks',
    run: (fake, { seg, body }) => {
      if (typeof body.name !== 'string' || !body.name || body.name.length > 80) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name');
      }
      if (/clyde|discord/i.test(body.name)) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name contains a forbidden word');
      }
      const hook = fake.createWebhook(seg[1], body.name);
      return [200, webhookJson(hook, fake.bot, true)];
    },
  },
  {
    // Token-authenticated; an interaction's follow-up uses the same route.
    method: 'POST',
    path: '/webhooks/:id/:token',
    run: (fake, { seg, body, query }) => {
      const interaction = fake.interactions.get(seg[2]);
      if (interaction && seg[1] === fake.bot.id) {
        return [200, answerInteraction(fake, interaction, 4, body, true)];
      }
      const hook = fake.webhooks.get(seg[1]);
      if (!hook || hook.token !== seg[2]) throw notFound('Webhook', 10015);
      const content = typeof body.content === 'string' ? body.content : '';
      if (!content) throw new HttpError(400, 50006, 'Cannot send an empty message');
      if (content.length > 2000) throw new HttpError(400, 50035, 'Invalid Form Body: content');
      const m = fake.storeMessage({
        channelId: hook.channelId,
        guildId: hook.guildId,
        authorId: hook.creatorId,
        content,
        webhookId: hook.id,
        webhookUsername: body.username ?? hook.name,
        webhookAvatarUrl: body.avatar_url,
      });
      return query.get('wait') === 'true' ? [200, fake.messageOut(m)] : [204];
    },
  },
];
