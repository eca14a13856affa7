import type { FakeDiscord } from '../fake-discord';
import { HttpError, notFound } from '../http-error';
import type { FakeInteraction, InteractionResponse } from '../model';
import { messageDefaults, userJson } from '../serialize';
import type { Route } from './route';

/** Records the bot's answer to an interaction and settles the waiting `runCommand`. */
export function answerInteraction(
  fake: FakeDiscord,
  interaction: FakeInteraction,
  type: number,
  data: any,
  followUp: boolean,
) {
  const response: InteractionResponse = {
    type,
    content: typeof data.content === 'string' ? data.content : null,
    ephemeral:
      (Number(data.flags ?? 0) & 64) !== 0 || (interaction.responses[0]?.ephemeral ?? false),
  };
  interaction.responses.push(response);
  if (type !== 5 || followUp) interaction.settle(response);
  return {
    id: fake.ids.next(),
    type: 0,
    channel_id: interaction.channelId,
    author: userJson(fake.bot),
    content: response.content ?? '',
    timestamp: new Date().toISOString(),
    ...messageDefaults(),
    flags: response.ephemeral ? 64 : 0,
    components: [],
    webhook_id: fake.bot.id,
  };
}

/** The interaction callback and the edit of the original (deferred) reply. */
export const interactionRoutes: Route[] = [
  {
    method: 'PATCH',
    path: '/webhooks/:app/:token/messages/@original',
    run: (fake, { seg, body }) => {
      const interaction = fake.interactions.get(seg[2]);
      if (!interaction) throw notFound('Webhook', 10015);
      return [200, answerInteraction(fake, interaction, 4, body, false)];
    },
  },
  {
    method: 'POST',
    path: '/interactions/:id/:token/callback',
    run: (fake, { seg, body }) => {
      const interaction = fake.interactions.get(seg[2]);
      if (!interaction || interaction.id !== seg[1]) throw notFound('Interaction', 10062);
      if (interaction.responses.length) {
        throw new HttpError(400, 40060, 'Interaction has already been acknowledged.');
      }
      answerInteraction(fake, interaction, Number(body.type), body.data ?? {}, false);
      return [204];
    },
  },
];
