import { plainToInstance } from 'class-transformer';
import { ValidateBy, ValidateIf, validateSync, type ValidationError } from 'class-validator';

/** One failed check: where (property names and array indexes) and what. */
export interface Issue {
  path: string[];
  message: string;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Optional as OpenAI means it: the field may be absent, but `null` is a wrong value. */
export const Optional = () => ValidateIf((_o, v) => v !== undefined);

/** A check that class-validator has no decorator for (a union of shapes), with its message. */
export function Satisfies(test: (v: unknown) => boolean, message: string): PropertyDecorator {
  return ValidateBy({
    name: 'satisfies',
    validator: { validate: (v) => test(v), defaultMessage: () => message },
  });
}

/** class-validator's errors as a flat list; messages lose their leading property name. */
export function issues(errors: ValidationError[], parent: string[] = []): Issue[] {
  const out: Issue[] = [];
  for (const e of errors) {
    const path = [...parent, e.property];
    // Constraints arrive in reverse declaration order; the first declared (the type) leads.
    for (const m of Object.values(e.constraints ?? {}).reverse())
      out.push({
        path,
        message: m.startsWith(`${e.property} `) ? m.slice(e.property.length + 1) : m,
      });
    if (e.children?.length) out.push(...issues(e.children, path));
  }
  return out;
}

/**
 * Validates `input` as an instance of `cls`; `strict` refuses properties the class does
 * not declare (configuration files), otherwise they are tolerated (OpenAI bodies).
 */
export function validateFields<T extends object>(
  cls: new () => T,
  input: object,
  strict = false,
): { value: T; issues: Issue[] } {
  const value = plainToInstance(cls, input);
  const errors = validateSync(value, {
    forbidUnknownValues: true,
    ...(strict ? { whitelist: true, forbidNonWhitelisted: true } : {}),
  });
  return { value, issues: issues(errors) };
}
