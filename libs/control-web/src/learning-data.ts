import {
  ErrorCodes,
  RouterWhatIfRequest,
  Subjects,
  validatePayload,
  type DispositionView,
  type FieldError,
  type LearningHistoryResult,
  type Reply,
  type RouterWhatIfResult,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { ReplyFailure, type GuildView } from './control-data';
import { asObject } from './http';
import type { PersonaView } from './persona-page';

/** The learning tab of one guild and agent: the engagement view and the what-if form. */
export interface LearningTab {
  guilds: GuildView[];
  guildId: string | null;
  agents: PersonaView[];
  /** The chosen agent's active persona (its weights prefill the what-if form). */
  persona: PersonaView | null;
  /** Every disposition of the set, sorted. */
  dispositions: string[];
  history: LearningHistoryResult | null;
  /** Set when the router did not answer (or refused): the tab says so. */
  error: string | null;
}

const DISPOSITION = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Candidate weights out of a form: each value a number 0..1000 (a string as typed is
 * read as a number), each key a disposition id; every bad entry is a field error
 * `weights.<id>`, all at once.
 */
export function validWeights(raw: unknown): Record<string, number> {
  const errors: FieldError[] = [];
  const out: Record<string, number> = {};
  const entries = Object.entries(asObject(raw));
  if (!entries.length) errors.push({ field: 'weights', messages: ['give at least one weight'] });
  for (const [id, v] of entries) {
    const w = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (!DISPOSITION.test(id)) {
      errors.push({ field: `weights.${id}`, messages: [`${id} is not a disposition id`] });
    } else if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 1000) {
      errors.push({ field: `weights.${id}`, messages: [`${id} must be a number from 0 to 1000`] });
    } else out[id] = w;
  }
  if (errors.length) throw new ReplyFailure(ErrorCodes.BAD_REQUEST, 'invalid weights', errors);
  return out;
}

/**
 * What the learning tab reads and does over NATS: the built-in agents' personas, the
 * disposition set, `admin.learning.history`, `router.whatif` and `admin.persona.upsert`.
 */
export class LearningData {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs = 10_000,
  ) {}

  private async call<T>(subj: string, data: unknown): Promise<T> {
    const reply: Reply<T> = await this.messaging.request<T>(subj, data, this.timeoutMs);
    if (!reply.ok)
      throw new ReplyFailure(reply.error.code, reply.error.message, reply.error.details);
    return reply.data;
  }

  async tab(guilds: GuildView[], guildId: string | null, agentId: string): Promise<LearningTab> {
    const tab: LearningTab = {
      guilds,
      guildId,
      agents: [],
      persona: null,
      dispositions: [],
      history: null,
      error: null,
    };
    try {
      const [{ personas }, { dispositions }] = await Promise.all([
        this.call<{ personas: PersonaView[] }>(Subjects.admin.personaList, {}),
        this.call<{ dispositions: DispositionView[] }>(Subjects.admin.dispositionList, {}),
      ]);
      tab.agents = personas;
      tab.persona = personas.find((p) => p.agentId === agentId) ?? personas[0] ?? null;
      tab.dispositions = dispositions.map((d) => d.id).sort();
      if (guildId && tab.persona) {
        tab.history = await this.call<LearningHistoryResult>(Subjects.admin.learningHistory, {
          guildId,
          agentId: tab.persona.agentId,
        });
      }
    } catch (e) {
      tab.error = (e as Error).message;
    }
    return tab;
  }

  /**
   * `router.whatif` for a form's body, checked before it goes on the wire: every bad field
   * (each weight, `last`, the guild) is named at once.
   */
  whatIf(body: unknown): Promise<RouterWhatIfResult> {
    const b = asObject(body);
    const errors: FieldError[] = [];
    let weights: Record<string, number> = {};
    try {
      weights = validWeights(b.weights);
    } catch (e) {
      if (!(e instanceof ReplyFailure)) throw e;
      errors.push(...(e.details as FieldError[]));
    }
    const last = typeof b.last === 'string' && b.last.trim() !== '' ? Number(b.last) : b.last;
    const input = {
      guildId: b.guildId,
      last,
      weights,
      ...(b.agentId ? { agentId: b.agentId } : {}),
    };
    const checked = validatePayload(RouterWhatIfRequest, input);
    if (!checked.ok) errors.push(...checked.errors.filter((x) => !x.field.startsWith('weights')));
    if (errors.length || !checked.ok)
      throw new ReplyFailure(ErrorCodes.BAD_REQUEST, 'invalid what-if', errors);
    return this.call<RouterWhatIfResult>(Subjects.router.whatif, checked.value);
  }

  /** The weights as the agent's persona's next version (`admin.persona.upsert`, merged over the active one). */
  saveWeights(agentId: string, body: unknown): Promise<PersonaView> {
    const dispositionWeights = validWeights(asObject(body).weights);
    return this.call<PersonaView>(Subjects.admin.personaUpsert, { agentId, dispositionWeights });
  }
}
