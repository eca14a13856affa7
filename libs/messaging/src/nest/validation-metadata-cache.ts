import { getMetadataStorage, type ValidationTypes } from 'class-validator';

type Metadata = {
  propertyName: string;
  type: (typeof ValidationTypes)[keyof typeof ValidationTypes];
};
type Grouped = Record<string, Metadata[]>;

interface Storage {
  getTargetValidationMetadatas(
    target: object,
    schema: string,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): Metadata[];
  groupByPropertyName(metadata: Metadata[]): Grouped;
  addValidationMetadata(metadata: unknown): void;
  addConstraintMetadata(metadata: unknown): void;
  addValidationSchema(schema: unknown): void;
}

const installed = Symbol.for('dirigent.validationMetadataCache');

/** Counts the registrations seen since the cache was installed (see compiled-contract.ts). */
let generation = 0;
export const validationMetadataGeneration = (): number => generation;

/**
 * Caches class-validator's per-class metadata look-ups. `validateSync` asks the global
 * metadata storage for a class's rules on every call (and for every nested object), and the
 * storage answers by filtering its rules and testing the class against every registered class
 * for inheritance: about half of a validation of a contract payload
 * (docs/performance.md, "The compiled contract"). A class's rules only change when a decorator registers
 * one, so the answers are kept per class until the storage registers anything new. Calls
 * with validation groups are not cached. Installed once per process, on import of the pipe.
 */
export function cacheValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as Storage & { [installed]?: true };
  if (storage[installed]) return;
  storage[installed] = true;

  let byClass = new WeakMap<object, Map<string, Metadata[]>>();
  let grouped = new WeakMap<Metadata[], Grouped>();
  const forget = () => {
    generation++;
    byClass = new WeakMap();
    grouped = new WeakMap();
  };

  const targetMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if ((groups && groups.length) || typeof target !== 'function') {
      return targetMetadatas(target, schema, always, strictGroups, groups);
    }
    const key = `${schema}\u0000${always}\u0000${strictGroups}`;
    let perClass = byClass.get(target);
    if (!perClass) byClass.set(target, (perClass = new Map()));
    let found = perClass.get(key);
    if (!found) perClass.set(key, (found = targetMetadatas(target, schema, always, strictGroups)));
    return found;
  };

  const groupByPropertyName = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) grouped.set(metadata, (found = groupByPropertyName(metadata)));
    return found;
  };

  for (const method of [
    'addValidationMetadata',
    'addConstraintMetadata',
    'addValidationSchema',
  ] as const) {
    const add = storage[method].bind(storage);
    storage[method] = (value: unknown) => {
      forget();
      add(value);
    };
  }
}
