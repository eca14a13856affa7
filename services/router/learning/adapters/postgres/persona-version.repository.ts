import { EntityManager } from '@mikro-orm/postgresql';
import type { ContextClass, PersonaCause, PersonaSignalView } from '@dirigent/contracts';
import { personaContent } from '@dirigent/router-domain';
import {
  PersonaStore,
  type PersonaMessage,
  type PersonaRecord,
  type PersonaWrite,
} from '../../application/ports';
import { KeptReads } from '../../../adapters/kept-reads';
import { PersonaMessageRow } from './persona-message.entity';
import { PersonaSignalRow } from './persona-signal.entity';
import { PersonaVersionRow } from './persona-version.entity';

/** The advisory lock class of persona writes (`pg_advisory_xact_lock(class, hashtext(agentId))`). */
const LOCK_CLASS = 0x70657273;

const toRecord = (r: PersonaVersionRow): PersonaRecord => ({
  agentId: r.agentId,
  version: r.version,
  content: personaContent(r.content),
  cause: r.cause as PersonaCause,
  ...(r.causeId ? { causeId: r.causeId } : {}),
  at: r.at,
});

type Signal = Parameters<PersonaStore['learn']>[0];

/**
 * `persona_versions` (the active persona is an agent's latest version), with its child
 * tables `persona_signals` and `persona_messages`. Every write of an agent's persona runs in
 * a transaction holding that agent's advisory lock, so two writers never race for a version
 * and a learning signal's row and the version it causes commit together.
 */
export class PostgresPersonas extends PersonaStore {
  /** Every turn reads its agent's active persona: kept (see `KeptReads`). */
  private readonly actives = new KeptReads<PersonaRecord | null>();

  constructor(private readonly em: EntityManager) {
    super();
  }

  /** Every version is written here, under the agent's lock: the kept active read is dropped. */
  private locked<T>(agentId: string, fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.actives.dropAfter(
      agentId,
      this.em.fork().transactional(async (em) => {
        await em.execute('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, agentId]);
        return fn(em);
      }),
    );
  }

  private async latest(em: EntityManager, agentId: string): Promise<PersonaRecord | null> {
    const row = await em.findOne(
      PersonaVersionRow,
      { agentId },
      { orderBy: { version: 'desc' }, disableIdentityMap: true },
    );
    return row ? toRecord(row) : null;
  }

  private async insert(
    em: EntityManager,
    agentId: string,
    version: number,
    w: NonNullable<PersonaWrite>,
    at: Date,
  ): Promise<PersonaRecord> {
    const content = personaContent(w.content);
    em.create(PersonaVersionRow, {
      agentId,
      version,
      content,
      cause: w.cause,
      causeId: w.causeId ?? null,
      at,
    });
    await em.flush();
    return {
      agentId,
      version,
      content,
      cause: w.cause,
      ...(w.causeId ? { causeId: w.causeId } : {}),
      at,
    };
  }

  seed(agentId: string, content: PersonaRecord['content'], at: Date): Promise<boolean> {
    return this.locked(agentId, async (em) => {
      if (await this.latest(em, agentId)) return false;
      await this.insert(em, agentId, 1, { content, cause: 'seed' }, at);
      return true;
    });
  }

  active(agentId: string): Promise<PersonaRecord | null> {
    return this.actives.get(agentId, () => this.latest(this.em.fork(), agentId));
  }

  async version(agentId: string, version: number): Promise<PersonaRecord | null> {
    const row = await this.em.fork().findOne(PersonaVersionRow, { agentId, version });
    return row ? toRecord(row) : null;
  }

  async versions(agentId: string, limit: number): Promise<PersonaRecord[]> {
    const rows = await this.em
      .fork()
      .find(PersonaVersionRow, { agentId }, { orderBy: { version: 'desc' }, limit });
    return rows.map(toRecord);
  }

  write(agentId: string, next: (active: PersonaRecord) => PersonaWrite, at: Date) {
    return this.locked(agentId, async (em) => {
      const previous = await this.latest(em, agentId);
      const w = previous && next(previous);
      if (!previous || !w) return null;
      return { previous, written: await this.insert(em, agentId, previous.version + 1, w, at) };
    });
  }

  async recordMessage(m: PersonaMessage): Promise<void> {
    await this.em
      .fork()
      .createQueryBuilder(PersonaMessageRow)
      .insert(m)
      .onConflict('messageId')
      .ignore()
      .execute();
  }

  async message(messageId: string): Promise<PersonaMessage | null> {
    const r = await this.em.fork().findOne(PersonaMessageRow, { messageId });
    return r ? messageOf(r) : null;
  }

  async recentMessages(guildId: string, channelId: string, since: Date, limit: number) {
    const rows = await this.em
      .fork()
      .find(
        PersonaMessageRow,
        { guildId, channelId, at: { $gte: since }, content: { $ne: null } },
        { orderBy: { at: 'desc' }, limit },
      );
    return rows.map(messageOf);
  }

  learn(
    s: Signal,
    next: (active: PersonaRecord) => { from: number; to: number; write: PersonaWrite },
    at: Date,
  ) {
    return this.locked(s.agentId, async (em) => {
      const counted = await em.findOne(PersonaSignalRow, {
        messageId: s.messageId,
        signal: s.signal,
      });
      const previous = await this.latest(em, s.agentId);
      if (counted || !previous) {
        return {
          applied: false as const,
          ...(counted?.version ? { version: counted.version } : {}),
        };
      }
      const { from, to, write } = next(previous);
      const written = write
        ? await this.insert(em, s.agentId, previous.version + 1, write, at)
        : undefined;
      em.create(PersonaSignalRow, {
        ...s,
        weightFrom: from,
        weightTo: to,
        version: written?.version ?? null,
        at,
      });
      await em.flush();
      return { applied: true as const, from, to, previous, ...(written ? { written } : {}) };
    });
  }

  async signals(agentId: string, limit: number): Promise<PersonaSignalView[]> {
    const rows = await this.em
      .fork()
      .find(PersonaSignalRow, { agentId }, { orderBy: { at: 'desc' }, limit });
    return rows.map((r) => ({
      messageId: r.messageId,
      signal: r.signal,
      polarity: r.polarity as PersonaSignalView['polarity'],
      dispositionId: r.dispositionId,
      from: r.weightFrom,
      to: r.weightTo,
      ...(r.version !== null ? { version: r.version } : {}),
      at: r.at.toISOString(),
    }));
  }
}

function messageOf(r: PersonaMessageRow): PersonaMessage {
  return {
    messageId: r.messageId,
    agentId: r.agentId,
    dispositionId: r.dispositionId,
    decisionId: r.decisionId,
    guildId: r.guildId,
    channelId: r.channelId,
    ...(r.contextClass ? { contextClass: r.contextClass as ContextClass } : {}),
    ...(r.content ? { content: r.content } : {}),
    at: r.at,
  };
}
