import type { PersonaCause, PersonaSignalView } from '@dirigent/contracts';
import type { PersonaContent } from '@dirigent/router-domain';

/** The persona learning loop's store (Postgres). */

/** A stored persona version. */
export interface PersonaRecord {
  agentId: string;
  version: number;
  content: PersonaContent;
  cause: PersonaCause;
  causeId?: string;
  at: Date;
}

/** What a write computes from the active version (null: nothing to write). */
export type PersonaWrite = {
  content: PersonaContent;
  cause: PersonaCause;
  causeId?: string;
} | null;

/** A built-in agent's delivered message and the disposition that produced it. */
export interface PersonaMessage {
  messageId: string;
  agentId: string;
  dispositionId: string;
  decisionId: string;
  guildId: string;
  channelId: string;
  at: Date;
}

/**
 * `persona_versions`, `persona_signals`, `persona_messages`. Every write of an agent's
 * persona holds that agent's lock for its transaction, so versions never race.
 */
export abstract class PersonaStore {
  /** Version 1 from the YAML when the agent has none yet; false when it had one. */
  abstract seed(agentId: string, content: PersonaContent, at: Date): Promise<boolean>;
  abstract active(agentId: string): Promise<PersonaRecord | null>;
  abstract version(agentId: string, version: number): Promise<PersonaRecord | null>;
  /** Newest first. */
  abstract versions(agentId: string, limit: number): Promise<PersonaRecord[]>;
  /** The next version from the active one (locked); null when there is none or `next` declines. */
  abstract write(
    agentId: string,
    next: (active: PersonaRecord) => PersonaWrite,
    at: Date,
  ): Promise<{ previous: PersonaRecord; written: PersonaRecord } | null>;
  abstract recordMessage(m: PersonaMessage): Promise<void>;
  abstract message(messageId: string): Promise<PersonaMessage | null>;
  /**
   * Applies a learning signal once per (message, signal): `next` computes the new version
   * from the locked active one. `applied: false` when this signal was already counted.
   */
  abstract learn(
    s: {
      messageId: string;
      signal: string;
      agentId: string;
      dispositionId: string;
      polarity: string;
    },
    next: (active: PersonaRecord) => { from: number; to: number; write: PersonaWrite },
    at: Date,
  ): Promise<
    /** Already counted: `version` is the one it wrote, if it moved the weight. */
    | { applied: false; version?: number }
    | { applied: true; from: number; to: number; previous: PersonaRecord; written?: PersonaRecord }
  >;
  /** Newest first. */
  abstract signals(agentId: string, limit: number): Promise<PersonaSignalView[]>;
}
