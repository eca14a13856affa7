import 'reflect-metadata';
import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import {
  Allow,
  getMetadataStorage,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  validateSync,
  ValidateIf,
  ValidateNested,
  type ValidatorOptions,
} from 'class-validator';
import * as contracts from '@dirigent/contracts';
import { contractCompiler, type ContractClass } from './compiled-contract';

/** The options the contract pipe validates with (contract-validation.pipe.ts). */
const OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: false,
  forbidUnknownValues: true,
  validationError: { target: false },
};
const TRANSFORM = { enableImplicitConversion: false };
const compiledContract = contractCompiler(OPTIONS, TRANSFORM)!;

type Ctor = ContractClass;

/** The full path the compiled form stands in for: class-transformer, then class-validator. */
function fullPath(cls: Ctor, plain: object): object | undefined {
  const entity = plainToInstance(cls, plain, TRANSFORM) as object;
  return validateSync(entity, OPTIONS).length === 0 ? entity : undefined;
}

const rulesOf = (cls: Ctor) =>
  (
    getMetadataStorage() as unknown as {
      getTargetValidationMetadatas(t: Ctor, s: undefined, a: boolean, g: boolean): unknown[];
    }
  ).getTargetValidationMetadatas(cls, undefined, false, false) as {
    propertyName: string;
    constraints?: unknown[];
  }[];

/** Every payload class of the contract: each exported class with validation rules. */
const contractClasses = Object.entries(contracts)
  .filter(([, v]) => typeof v === 'function' && rulesOf(v as Ctor).length > 0)
  .map(([name, v]) => [name, v as Ctor] as const);

/** Values some rule may accept: ids, names, small numbers, flags. */
const CANDIDATES: unknown[] = [
  '123456789012345678',
  '1',
  'agent-1',
  'master',
  'a',
  'hello world',
  '',
  'x'.repeat(201),
  0,
  1,
  5,
  100,
  -1,
  1.5,
  true,
  false,
  null,
  [],
  ['123456789012345678'],
  ['123456789012345678', '223456789012345678'],
  ['123456789012345678', 'x'],
  ['a', 'b'],
  [1, 2],
  [true],
  [null],
  [{ a: 1 }],
];

/**
 * Flat JSON payloads for a class: each of its properties present or not, and now and then an
 * unknown key (prototype keys included). A property's value is mostly one its own rules
 * accept (found by asking the full path about each candidate and each of the rules' own
 * constraint values, as `@IsIn` lists them), so that payloads are valid as well as invalid;
 * otherwise any JSON primitive.
 */
function payloads(cls: Ctor): fc.Arbitrary<Record<string, unknown>> {
  const rules = rulesOf(cls);
  const names = [...new Set(rules.map((r) => r.propertyName))];
  const fromRules = rules
    .flatMap((r) => r.constraints ?? [])
    .flatMap((c) => (Array.isArray(c) ? c : [c]))
    .filter((c) => ['string', 'number', 'boolean'].includes(typeof c));
  const candidates = [...CANDIDATES, ...fromRules];
  const accepted = (name: string) =>
    candidates.filter(
      (v) =>
        !validateSync(plainToInstance(cls, { [name]: v }, TRANSFORM) as object, OPTIONS).some(
          (e) => e.property === name,
        ),
    );
  const any = fc.oneof(
    fc.constantFrom(...candidates),
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true }),
  );
  const property = (name: string) => {
    const good = accepted(name);
    const value = good.length
      ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: any })
      : any;
    return fc.option(value, { nil: undefined, freq: 8 }) as fc.Arbitrary<unknown>;
  };
  const unknownKeys = fc.dictionary(
    fc.constantFrom('extra', 'toString', 'create', 'constructor', 'hasOwnProperty'),
    any,
    { maxKeys: 2 },
  );
  return fc
    .tuple(fc.record(Object.fromEntries(names.map((n) => [n, property(n)]))), unknownKeys)
    .map(([known, extra]) => {
      const plain: Record<string, unknown> = JSON.parse(JSON.stringify(extra));
      for (const [k, v] of Object.entries(known)) if (v !== undefined) plain[k] = v;
      return plain;
    });
}

/** Whether a payload holds an array of something other than strings, numbers and booleans. */
const hasOtherArrays = (plain: Record<string, unknown>) =>
  Object.values(plain).some(
    (v) => Array.isArray(v) && !v.every((i) => ['string', 'number', 'boolean'].includes(typeof i)),
  );

describe('contractCompiler', () => {
  it('covers the contract: most payload classes have a compiled form', () => {
    const compiled = contractClasses.filter(([, cls]) => compiledContract(cls));
    expect(contractClasses.length).toBeGreaterThan(20);
    expect(compiled.map(([name]) => name)).toEqual(
      expect.arrayContaining(['CheckTurnRequest', 'TurnComplete', 'MessageCreated']),
    );
  });

  it.each(contractClasses)(
    '%s: hands back what the full path does, or leaves the payload to it',
    (_name, cls) => {
      const run = compiledContract(cls);
      if (!run) return;
      fc.assert(
        fc.property(payloads(cls), (plain) => {
          const expected = fullPath(cls, structuredClone(plain));
          const before = structuredClone(plain);
          const got = run(plain);
          expect(plain).toEqual(before);
          if (got === undefined) {
            // Only an invalid payload, or an array of other than strings, numbers and booleans,
            // is left to the full path.
            if (hasOtherArrays(plain)) return;
            expect(expected).toBeUndefined();
          } else {
            expect(Object.getPrototypeOf(got)).toBe(cls.prototype);
            expect(Object.entries(got)).toEqual(Object.entries(expected ?? {}));
            expect(expected).toBeDefined();
          }
        }),
        { numRuns: 200 },
      );
    },
  );

  it('leaves nested values, nested classes and class-transformer rules to the full path', () => {
    class Inner {
      @IsString() name: string;
    }
    class Outer {
      @ValidateNested() inner: Inner;
    }
    class Flat {
      @IsInt() n: number;
      @Allow() anything?: unknown;
    }
    expect(compiledContract(Outer)).toBeUndefined();
    const flat = compiledContract(Flat)!;
    expect(flat({ n: 1, anything: 'kept', other: 2 })).toEqual({ n: 1, anything: 'kept' });
    expect(flat({ n: 1, anything: { a: 1 } })).toBeUndefined();
    expect(flat({ n: 1.5 })).toBeUndefined();
    expect(contractCompiler({ ...OPTIONS, groups: ['a'] }, TRANSFORM)).toBeUndefined();
    expect(contractCompiler(OPTIONS, { excludeExtraneousValues: true })).toBeUndefined();
    class WithSetter {
      @IsString() name: string;
      private seen?: unknown;
      set note(v: unknown) {
        this.seen = v;
      }
    }
    expect(compiledContract(WithSetter)!({ name: 'a' })).toEqual({ name: 'a' });
    expect(compiledContract(WithSetter)!({ name: 'a', note: 'b' })).toBeUndefined();
  });

  it('checks an array of primitives item by item under `each`, on a copy', () => {
    class Tags {
      @IsArray() @IsString({ each: true }) tags: string[];
    }
    const run = compiledContract(Tags)!;
    const payload = { tags: ['a', 'b'] };
    const got = run(payload) as Tags;
    expect(got).toEqual({ tags: ['a', 'b'] });
    expect(got.tags).not.toBe(payload.tags);
    expect(run({ tags: ['a', 1] })).toBeUndefined();
    expect(run({ tags: [{ a: 1 }] })).toBeUndefined();
    expect(run({ tags: 'a' })).toBeUndefined();
  });

  it('follows conditions as class-validator does', () => {
    class Conditional {
      @IsIn(['a', 'b']) kind: string;
      @ValidateIf((o: Conditional) => o.kind === 'a') @IsString() label?: string;
      @IsOptional() @IsInt() size?: number;
    }
    const run = compiledContract(Conditional)!;
    expect(run({ kind: 'b', label: 3 })).toEqual({ kind: 'b', label: 3 });
    expect(run({ kind: 'a', label: 3 })).toBeUndefined();
    expect(run({ kind: 'a', label: 'x', size: null })).toEqual({
      kind: 'a',
      label: 'x',
      size: null,
    });
    expect(run({ kind: 'c' })).toBeUndefined();
  });
});
