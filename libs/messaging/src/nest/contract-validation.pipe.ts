import { ValidationPipe } from '@nestjs/common';
import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import { DomainError, ErrorCodes, fieldErrors } from '@dirigent/contracts';

/**
 * Nest's ValidationPipe set up for the contract's payload classes: the parameter's class is
 * validated and handed over as an instance; unknown fields are stripped, never refused
 * (consumers ignore what they do not know); a failure is a `BAD_REQUEST` DomainError whose
 * details are the field errors. Validation is synchronous: the contract has no async rules,
 * and skipping the promise keeps it off the request's critical path.
 */
export class ContractValidationPipe extends ValidationPipe {
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

  protected override validate(object: object, options?: ValidatorOptions): ValidationError[] {
    return validateSync(object, options);
  }
}
