/** Where a bot's settings are: the application's Bot page in Discord's Developer Portal. */
const PORTAL = 'Discord Developer Portal → your application → Bot';

/**
 * What to do when Discord refuses the bot for good, as one line: a gateway close code
 * (4014: a privileged intent not enabled; 4004: the token refused) or the REST login's
 * HTTP 401. Null for anything else, which is retried.
 *
 * @example
 * refusal({ closeCode: 4014 }); // 'Discord refused the privileged intents (close code 4014): …'
 */
export function refusal(r: { closeCode?: number; httpStatus?: number }): string | null {
  if (r.closeCode === 4014) {
    return `Discord refused the privileged intents (close code 4014): in the ${PORTAL} → Privileged Gateway Intents, enable Message Content Intent and Server Members Intent, save, and start again.`;
  }
  const token = `in the ${PORTAL}, press Reset Token and put the new token in DISCORD_TOKEN, then start again.`;
  if (r.closeCode === 4004) return `Discord refused DISCORD_TOKEN (close code 4004): ${token}`;
  if (r.httpStatus === 401) return `Discord refused DISCORD_TOKEN (HTTP 401): ${token}`;
  return null;
}
