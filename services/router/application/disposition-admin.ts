import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type DispositionListRequest,
  type DispositionRemoveRequest,
  type DispositionUpsertRequest,
} from '@dirigent/contracts';
import { DispositionStore } from './stores';

/** `Subjects.admin.dispositionList` (and upsert, remove): the global persona set at run time. */
@Injectable()
export class DispositionAdmin {
  constructor(private readonly store: DispositionStore) {}

  async list(r: DispositionListRequest) {
    const all = await this.store.list();
    return { dispositions: r.id ? all.filter((d) => d.id === r.id) : all };
  }

  async upsert(r: DispositionUpsertRequest) {
    try {
      return await this.store.upsert(r);
    } catch (e) {
      const fields = (e as { fields?: string[] }).fields;
      if (!fields) throw e;
      throw new DomainError(
        ErrorCodes.BAD_REQUEST,
        (e as Error).message,
        fields.map((field) => ({
          field,
          messages: [`${field} is required for a new disposition`],
        })),
      );
    }
  }

  async remove(r: DispositionRemoveRequest) {
    if (!(await this.store.remove(r.id))) {
      throw new DomainError(ErrorCodes.NOT_FOUND, `no disposition ${r.id}`);
    }
    return { removed: r.id };
  }
}
