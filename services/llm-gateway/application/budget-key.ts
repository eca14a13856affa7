import { LLM_GUILD } from '@dirigent/contracts';
import { DEFAULT_BUDGET_ROW } from './ports';
import { invalid } from './invalid';

/** A guild id as given in a path; `default` (where allowed) is the row of every guild. */
export function guildKey(guild: string, allowDefault = true): string {
  if (allowDefault && guild === 'default') return DEFAULT_BUDGET_ROW;
  if (!LLM_GUILD.test(guild)) throw invalid('guildId', 'must be 1-64 letters, digits, _ or -');
  return guild;
}
