import type { ClassTransformOptions } from 'class-transformer';
import {
  getMetadataStorage,
  ValidationTypes,
  type ValidationArguments,
  type ValidatorOptions,
} from 'class-validator';
import {
  cacheTransformMetadata,
  hasTransformRules,
  transformMetadataGeneration,
} from './transform-metadata-cache';
import { cacheValidationMetadata, validationMetadataGeneration } from './validation-metadata-cache';

// The generations below count registrations only once the caches are installed.
cacheValidationMetadata();
cacheTransformMetadata();

/** A payload class of the contract (a constructor without arguments, as class-transformer calls it). */
export type ContractClass = new () => object;

/**
 * A contract class's validation as one function over a flat JSON payload (primitives, and
 * arrays of strings, numbers and booleans): the instance the pipe's full path would hand
 * over, or `undefined` — the payload is invalid, or has something the function does not
 * handle (a nested object, an array of anything else, a rule that answers with a promise) —
 * and the full path (class-transformer, then class-validator) decides and words the errors.
 */
export type CompiledContract = (plain: Record<string, unknown>) => object | undefined;

type Metadata = {
  type: string;
  propertyName: string;
  constraints: unknown[];
  constraintCls: unknown;
  each?: boolean;
};

type Check = {
  property: string;
  constraints: unknown[];
  validator: { validate(value: unknown, args: ValidationArguments): unknown };
  /** `{ each: true }`: an array's every item is checked (any other value, as itself). */
  each: boolean;
};

type Rule = {
  property: string;
  /** `@IsOptional()`, `@ValidateIf()`: the property's checks run only when all hold. */
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
};

const storage = getMetadataStorage() as unknown as {
  getTargetValidationMetadatas(
    target: object,
    schema: string | undefined,
    always: boolean,
    strictGroups: boolean,
  ): Metadata[];
  groupByPropertyName(metadata: Metadata[]): Record<string, Metadata[]>;
  getTargetValidatorConstraints(
    target: unknown,
  ): { async: boolean; instance: Check['validator'] }[];
};

/**
 * The options the compiled form reproduces: the contract pipe's (class-transformer with its
 * defaults and no implicit conversion; whitelist strips unknown properties, unknown values
 * are refused, no groups, nothing skipped).
 */
function supported(o: ValidatorOptions, t: ClassTransformOptions): boolean {
  const transformDefaults = Object.entries(t).every(
    ([key, value]) =>
      value === undefined ||
      (key === 'enableImplicitConversion' && value === false) ||
      (key === 'exposeUnsetFields' && value === true),
  );
  return (
    transformDefaults &&
    o.whitelist === true &&
    !o.forbidNonWhitelisted &&
    o.forbidUnknownValues !== false &&
    !o.groups?.length &&
    !o.always &&
    !o.strictGroups &&
    !o.skipMissingProperties &&
    !o.skipNullProperties &&
    !o.skipUndefinedProperties
  );
}

/**
 * The rules of a class whose validation is flat: every rule a synchronous custom constraint
 * (the built-in decorators are too, `each` or not), `@IsDefined`, `@IsOptional`/`@ValidateIf`
 * or `@Allow`; no nested validation. Undefined for any other class.
 */
function flatRules(metatype: ContractClass): Rule[] | undefined {
  if (hasTransformRules(metatype)) return undefined;
  const metadatas = storage.getTargetValidationMetadatas(metatype, undefined, false, false);
  if (metadatas.length === 0) return undefined;
  const rules: Rule[] = [];
  for (const [property, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    // A property class-transformer would not set (a getter, a method) keeps its class value.
    if (property === '__proto__' || property === 'constructor') return undefined;
    if (Object.getOwnPropertyDescriptor(metatype.prototype, property)) return undefined;
    if (property in Object.prototype) return undefined;
    const rule: Rule = { property, conditions: [], checks: [] };
    for (const m of list) {
      switch (m.type) {
        case ValidationTypes.WHITELIST:
          break;
        case ValidationTypes.CONDITIONAL_VALIDATION:
          rule.conditions.push(m.constraints[0] as Rule['conditions'][number]);
          break;
        case ValidationTypes.IS_DEFINED:
        case ValidationTypes.CUSTOM_VALIDATION:
          for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
            // validateSync leaves asynchronous constraints out; so does this.
            if (!c.async) {
              rule.checks.push({
                property,
                constraints: m.constraints,
                validator: c.instance,
                each: m.each === true,
              });
            }
          }
          break;
        default:
          return undefined;
      }
    }
    rules.push(rule);
  }
  return rules;
}

function compile(metatype: ContractClass): CompiledContract | undefined {
  const rules = flatRules(metatype);
  if (!rules) return undefined;
  const known = new Set(rules.map((r) => r.property));
  const Ctor = metatype as new () => Record<string, unknown>;
  return (plain) => {
    // plainToInstance: a new instance, every own key of the payload copied onto it.
    const object = new Ctor();
    if (object.constructor !== metatype) return undefined;
    for (const key of Object.keys(plain)) {
      if (key === '__proto__' || key === 'constructor') continue;
      let value = plain[key];
      if (value !== null && typeof value === 'object') {
        // class-transformer copies an array of primitives item by item (no implicit conversion).
        if (!Array.isArray(value) || !value.every(isPrimitive)) return undefined;
        value = [...(value as unknown[])];
      }
      // As class-transformer: a getter without a setter, or a method, is not overwritten; a
      // setter would run code of the class's own, which the full path then runs.
      const accessor = Object.getOwnPropertyDescriptor(metatype.prototype, key);
      if (accessor?.set) return undefined;
      if (accessor || object[key] instanceof Function) continue;
      object[key] = value;
    }
    // validateSync with whitelist: what no rule names is removed, then every rule holds.
    for (const key of Object.keys(object)) if (!known.has(key)) delete object[key];
    for (const rule of rules) {
      const value = object[rule.property];
      if (!rule.conditions.every((holds) => holds(object, value))) continue;
      for (const check of rule.checks) {
        const args = {
          targetName: metatype.name,
          property: check.property,
          object,
          value,
          constraints: check.constraints,
        };
        // As class-validator: with `each`, an array's items with the whole value's arguments.
        const valid =
          check.each && Array.isArray(value)
            ? value.every((item) => check.validator.validate(item, args) === true)
            : check.validator.validate(value, args) === true;
        if (!valid) return undefined;
      }
    }
    return object;
  };
}

const isPrimitive = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

const compiled = new WeakMap<
  ContractClass,
  { validation: number; transform: number; run: CompiledContract | undefined }
>();

/** A class's compiled form, built on first use and again after a rule is registered. */
function compiledFor(metatype: ContractClass): CompiledContract | undefined {
  const validation = validationMetadataGeneration();
  const transform = transformMetadataGeneration();
  let entry = compiled.get(metatype);
  if (entry?.validation !== validation || entry.transform !== transform) {
    entry = { validation, transform, run: compile(metatype) };
    compiled.set(metatype, entry);
  }
  return entry.run;
}

/**
 * The compiled forms of contract classes' validation (see {@link CompiledContract}) under the
 * given options, or undefined when the options are beyond them. The function it returns
 * answers undefined for a class whose rules are beyond them; it builds a class's form on
 * first use and again after any decorator registers a rule (class-validator's or
 * class-transformer's).
 */
export function contractCompiler(
  options: ValidatorOptions,
  transformOptions: ClassTransformOptions = {},
): ((metatype: ContractClass) => CompiledContract | undefined) | undefined {
  return supported(options, transformOptions) ? compiledFor : undefined;
}
