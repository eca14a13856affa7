import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { DomainError, ErrorCodes, FieldError } from './reply';

type Ctor<T> = new () => T;

/** class-validator's nested errors as the contract's `{ field, messages }` list. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) out.push({ field, messages: Object.values(e.constraints) });
    if (e.children?.length) out.push(...fieldErrors(e.children, field));
  }
  return out;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * Validates a plain object against a payload class. Unknown properties are stripped, not
 * refused: the contract grows additively, so a consumer ignores fields it does not know.
 */
export function validatePayload<T extends object>(cls: Ctor<T>, input: unknown): Validated<T> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: '', messages: ['body must be a JSON object'] }] };
  }
  const instance = plainToInstance(cls, input, { enableImplicitConversion: false });
  const errors = validateSync(instance as object, {
    whitelist: true,
    forbidUnknownValues: true,
  });
  if (errors.length) return { ok: false, errors: fieldErrors(errors) };
  return { ok: true, value: instance };
}

/**
 * The validating factory behind every payload class's `create()`: returns the typed
 * instance or throws a `BAD_REQUEST` DomainError whose details are the field errors.
 *
 * @example
 * const check = CheckTurnRequest.create({ guildId: '1', channelId: '2', agentId: 'a' });
 */
export function createValidated<T extends object>(cls: Ctor<T>, input: unknown): T {
  const result = validatePayload(cls, input);
  if (!result.ok) {
    const fields = result.errors.map((e) => e.field || '(body)').join(', ');
    throw new DomainError(ErrorCodes.BAD_REQUEST, `invalid ${cls.name}: ${fields}`, result.errors);
  }
  return result.value;
}
