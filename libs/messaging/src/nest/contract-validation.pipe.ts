import { ValidationPipe, type ArgumentMetadata, type Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import { DomainError, ErrorCodes, fieldErrors } from '@dirigent/contracts';
import { contractCompiler, type CompiledContract, type ContractClass } from './compiled-contract';
import { cacheTransformMetadata } from './transform-metadata-cache';
import { cacheValidationMetadata } from './validation-metadata-cache';

cacheValidationMetadata();
cacheTransformMetadata();

/** The keys Nest's ValidationPipe removes from a payload (prototype pollution). */
const PROTO_KEYS = ['__proto__', 'prototype', 'constructor'] as const;

/**
 * Removes the prototype keys Nest's ValidationPipe removes, from a value that JSON.parse may
 * have produced: plain objects, dense arrays, strings, numbers, booleans and null. Returns
 * false (having changed nothing it would not also change) for anything else — a Buffer, a
 * typed array, a Date, a sparse array, a class instance — which the full pipe handles.
 */
function stripJsonProtoKeys(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > 64) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !stripJsonProtoKeys(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const record = value as Record<string, unknown>;
  for (const key of PROTO_KEYS) if (Object.hasOwn(record, key)) delete record[key];
  for (const key in record) if (!stripJsonProtoKeys(record[key], depth + 1)) return false;
  return true;
}

/**
 * Nest's ValidationPipe set up for the contract's payload classes: the parameter's class is
 * validated and handed over as an instance; unknown fields are stripped, never refused
 * (consumers ignore what they do not know); a failure is a `BAD_REQUEST` DomainError whose
 * details are the field errors.
 *
 * The transport hands it JSON payloads only, so it takes a short path for them: the same
 * prototype-key stripping, class-transformer and class-validator (synchronously: the contract
 * has no async rules), without the steps that only matter for values JSON cannot hold
 * (sparse arrays, binary values) and without a promise. A flat payload of a flat class goes
 * first to the class's compiled form (compiled-contract.ts: the same constraints, called
 * directly), which hands back the same instance or sends it on to that path; on check-turn
 * the pipe was ~8 µs a call in a tight loop and ~29 µs in the coordinator
 * (docs/performance.md, "The compiled contract"). Anything that is not a JSON object goes through Nest's
 * own pipe.
 */
export class ContractValidationPipe extends ValidationPipe {
  private syncOptions?: ValidatorOptions;
  private compiled?: (metatype: ContractClass) => CompiledContract | undefined;

  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: false,
      forbidUnknownValues: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors: ValidationError[]) => {
        const fields = fieldErrors(errors);
        const names = fields.map((e) => e.field || '(body)').join(', ');
        return new DomainError(ErrorCodes.BAD_REQUEST, `invalid request: ${names}`, fields);
      },
    });
  }

  override transform(value: unknown, metadata: ArgumentMetadata): any {
    const metatype = metadata.metatype as Type<object> | undefined;
    if (!metatype || !this.toValidate(metadata) || !stripJsonProtoKeys(value) || value === null) {
      return super.transform(value, metadata);
    }
    if (typeof value !== 'object' || Array.isArray(value)) return super.transform(value, metadata);
    this.syncOptions ??= {
      ...this.validatorOptions,
      // As Nest's pipe: the error's target would repeat the whole object once per error.
      validationError: { target: false, ...this.validatorOptions.validationError },
    };
    this.compiled ??=
      contractCompiler(this.syncOptions, this.transformOptions) ?? (() => undefined);
    const valid = this.compiled(metatype)?.(value as Record<string, unknown>);
    if (valid) return valid;
    const entity = plainToInstance(metatype, value, this.transformOptions) as object;
    if (entity.constructor !== metatype) return super.transform(value, metadata);
    const errors = validateSync(entity, this.syncOptions);
    if (errors.length > 0) {
      if (this.validatorOptions.validationError?.value === undefined) {
        this.stripParentErrorValues(errors);
      }
      throw this.exceptionFactory(errors);
    }
    return entity;
  }

  protected override validate(object: object, options?: ValidatorOptions): ValidationError[] {
    return validateSync(object, options);
  }
}
