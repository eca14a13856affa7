import 'reflect-metadata';
import { Exclude, Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DomainError } from '@dirigent/contracts';
import { ContractValidationPipe } from './contract-validation.pipe';

class Inner {
  @IsString() name: string;
}

class Outer {
  @IsInt() n: number;
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}

const pipe = new ContractValidationPipe();
const run = (value: unknown) =>
  Promise.resolve().then(() => pipe.transform(value, { type: 'body', metatype: Outer }));

describe('ContractValidationPipe', () => {
  it('hands over an instance of the class, nested classes included, without unknown fields', async () => {
    const out = await run(JSON.parse('{"n":1,"extra":true,"inner":{"name":"a","more":2}}'));
    expect(out).toBeInstanceOf(Outer);
    expect(out.inner).toBeInstanceOf(Inner);
    expect(out).toEqual({ n: 1, inner: { name: 'a' } });
  });

  it('drops prototype keys of a JSON payload instead of following them', async () => {
    const out = await run(JSON.parse('{"n":1,"__proto__":{"n":"x"},"constructor":{"a":1}}'));
    expect(out).toBeInstanceOf(Outer);
    expect(Object.hasOwn(out, 'constructor')).toBe(false);
    expect(Object.getPrototypeOf(out)).toBe(Outer.prototype);
  });

  it('refuses an invalid payload with BAD_REQUEST and the failing fields', async () => {
    const e = await run(JSON.parse('{"n":"1","inner":{"name":2}}')).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(DomainError);
    expect(e).toMatchObject({ code: 'BAD_REQUEST' });
    expect((e as DomainError).details).toEqual([
      { field: 'n', messages: [expect.stringContaining('integer')] },
      { field: 'inner.name', messages: [expect.stringContaining('string')] },
    ]);
  });

  it('sees a rule added to a class after the class was first validated', async () => {
    class Late {
      @IsInt() n: number;
      m?: unknown;
    }
    const late = (value: unknown) =>
      Promise.resolve().then(() => pipe.transform(value, { type: 'body', metatype: Late }));
    await expect(late({ n: 1, m: 'kept?' })).resolves.toEqual({ n: 1 });
    IsString()(Late.prototype, 'm');
    await expect(late({ n: 1, m: 'kept' })).resolves.toEqual({ n: 1, m: 'kept' });
    await expect(late({ n: 1, m: 2 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('sees a class-transformer rule added to a class after the class was first transformed', async () => {
    class Shaped {
      @IsString() name: string;
      @IsOptional() @IsInt() size?: number;
    }
    const shaped = (value: unknown) =>
      Promise.resolve().then(() => pipe.transform(value, { type: 'body', metatype: Shaped }));
    await expect(shaped({ name: 'a', size: 2 })).resolves.toEqual({ name: 'a', size: 2 });
    Transform(({ value }: { value: unknown }) => String(value).toUpperCase())(
      Shaped.prototype,
      'name',
    );
    Exclude()(Shaped.prototype, 'size');
    await expect(shaped({ name: 'a', size: 2 })).resolves.toEqual({ name: 'A' });
  });

  it('gives what is not a JSON object to Nest’s own pipe, with the same rules', async () => {
    await expect(run([{ n: 1 }])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(run(Buffer.from('{"n":1}'))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const sparse: unknown[] = [];
    sparse[2] = 1;
    await expect(run({ n: 1, inner: sparse })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
