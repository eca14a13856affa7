// class-transformer's metadata storage is not part of its typed entry point; the pipe and
// Nest's own serializer use this same singleton.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: Storage;
};

type Metadata = object;

interface Storage {
  _typeMetadatas: Map<unknown, unknown>;
  _transformMetadatas: Map<unknown, unknown>;
  _exposeMetadatas: Map<unknown, unknown>;
  _excludeMetadatas: Map<unknown, unknown>;
  getExposedMetadatas(target: object): Metadata[];
  getExcludedMetadatas(target: object): Metadata[];
  findTransformMetadatas(target: object, propertyName: unknown, type: number): Metadata[];
  addTypeMetadata(metadata: unknown): void;
  addTransformMetadata(metadata: unknown): void;
  addExposeMetadata(metadata: unknown): void;
  addExcludeMetadata(metadata: unknown): void;
  clear(): void;
}

const installed = Symbol.for('dirigent.transformMetadataCache');

/** Counts the registrations seen since the cache was installed (see compiled-contract.ts). */
let generation = 0;
export const transformMetadataGeneration = (): number => generation;

/** True when class-transformer has a rule for the class or an ancestor (a @Type, @Expose…). */
export function hasTransformRules(target: object): boolean {
  const s = defaultMetadataStorage;
  const maps = [s._typeMetadatas, s._transformMetadatas, s._exposeMetadatas, s._excludeMetadatas];
  for (let c: unknown = target; typeof c === 'function' && c !== Function.prototype; ) {
    if (maps.some((map) => map.has(c))) return true;
    c = Object.getPrototypeOf(c);
  }
  return false;
}

/**
 * Caches class-transformer's per-class metadata look-ups, as {@link cacheValidationMetadata}
 * does for class-validator's. `plainToInstance` asks the storage, for every key of the
 * payload, for the class's exposed, excluded and transform rules, and the storage answers by
 * copying and filtering its maps for the class and each ancestor: about half of the
 * transform of a contract payload (docs/performance.md, "The compiled contract"). The answers only change
 * when a decorator registers a rule, so they are kept per class until the storage registers
 * anything new or is cleared. The answers are shared: class-transformer only reads them.
 */
export function cacheTransformMetadata(): void {
  const storage = defaultMetadataStorage as Storage & { [installed]?: true };
  if (storage[installed]) return;
  storage[installed] = true;

  let exposed = new WeakMap<object, Metadata[]>();
  let excluded = new WeakMap<object, Metadata[]>();
  let transforms = new WeakMap<object, Map<string, Metadata[]>>();
  const forget = () => {
    generation++;
    exposed = new WeakMap();
    excluded = new WeakMap();
    transforms = new WeakMap();
  };
  const perClass = (
    cache: () => WeakMap<object, Metadata[]>,
    look: (target: object) => Metadata[],
  ) => {
    return (target: object) => {
      if (typeof target !== 'function') return look(target);
      let found = cache().get(target);
      if (!found) cache().set(target, (found = look(target)));
      return found;
    };
  };
  storage.getExposedMetadatas = perClass(() => exposed, storage.getExposedMetadatas.bind(storage));
  storage.getExcludedMetadatas = perClass(
    () => excluded,
    storage.getExcludedMetadatas.bind(storage),
  );

  const findTransforms = storage.findTransformMetadatas.bind(storage);
  storage.findTransformMetadatas = (target, propertyName, type) => {
    if (typeof target !== 'function' || typeof propertyName !== 'string') {
      return findTransforms(target, propertyName, type);
    }
    let byKey = transforms.get(target);
    if (!byKey) transforms.set(target, (byKey = new Map()));
    const key = `${type}\u0000${propertyName}`;
    let found = byKey.get(key);
    if (!found) byKey.set(key, (found = findTransforms(target, propertyName, type)));
    return found;
  };

  for (const method of [
    'addTypeMetadata',
    'addTransformMetadata',
    'addExposeMetadata',
    'addExcludeMetadata',
    'clear',
  ] as const) {
    const change = storage[method].bind(storage) as (value?: unknown) => void;
    storage[method] = (value?: unknown) => {
      forget();
      change(value);
    };
  }
}
