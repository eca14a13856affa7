import { PersonaMessageRow } from './persona-message.entity';
import { PersonaSignalRow } from './persona-signal.entity';
import { PersonaVersionRow } from './persona-version.entity';

/** The persona learning loop's tables (Migration20261128031000_personas). */
export const learningEntities = [PersonaVersionRow, PersonaSignalRow, PersonaMessageRow];
