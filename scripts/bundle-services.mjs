/**
 * The last step of `npm run build`: the entry points of the turn coordinator and the router, as
 * tsc emitted them (dist/services/<service>/main.js, decorator metadata included), each become
 * one file with its libraries in it. A restarted coordinator then loads ~60 modules instead of
 * ~2,300, which takes about 40% less time; a restarted router answers its health check about
 * 17% sooner (docs/performance.md, "The bundles and the coordinator's young generation"). A
 * restart is when the backlog of the seconds it was down is waiting.
 *
 * Left outside the bundle: what is loaded by a computed name or only if installed (the optional
 * transports and drivers of Nest, MikroORM and knex: whatever does not resolve here), what keeps
 * files next to its code (pino's worker threads, pino-pretty, the migrator and its migrations),
 * and class-transformer (its metadata storage is also required on its own). They load from
 * node_modules as before.
 */
import { build } from 'esbuild';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The services whose `main.js` is bundled. */
const SERVICES = ['turn-coordinator', 'router'];

const external = new Set([
  'pino',
  'pino-pretty',
  'thread-stream',
  'pg-native',
  '@mikro-orm/migrations',
  'class-transformer',
]);

function packageOf(request) {
  const parts = request.split('/');
  return parts.slice(0, request.startsWith('@') ? 2 : 1).join('/');
}

/** External: the packages above, the migrations (`ormConfig()` only) and what does not resolve. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'probe') return undefined;
      const bare = !args.path.startsWith('.') && !args.path.startsWith('/');
      if (bare && external.has(packageOf(args.path))) return { path: args.path, external: true };
      if (args.path === './migrations' && args.importer.includes('libs/persistence/src')) {
        return { path: args.path, external: true };
      }
      const found = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'probe',
      });
      return found.errors.length ? { path: args.path, external: true } : undefined;
    });
  },
};

/**
 * @mikro-orm/nestjs finds the driver's package by a computed name (`require(name)`), which
 * would load a second copy of MikroORM from node_modules, whose classes are not the bundle's
 * DI tokens: name the packages we use.
 */
const mikroOrmNestDrivers = {
  name: 'mikro-orm-nestjs-drivers',
  setup(b) {
    b.onLoad({ filter: /@mikro-orm[\\/]nestjs[\\/]mikro-orm-core\.module\.js$/ }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      const from = 'return await Promise.resolve(`${name}`).then(s => __importStar(require(s)));';
      if (!src.includes(from)) throw new Error(`${args.path}: tryRequire() has changed`);
      const to = `switch (name) {
            case '@mikro-orm/postgresql': return __importStar(require('@mikro-orm/postgresql'));
            case '@mikro-orm/knex': return __importStar(require('@mikro-orm/knex'));
            default: return undefined;
        }`;
      return { contents: src.replace(from, to), loader: 'js' };
    });
  },
};

/**
 * `keepNames` keeps the classes' names (MikroORM's entity names, Nest's providers) where the
 * bundle renames a symbol, by calling `__name(fn, 'name')` after every function and class it
 * defines — also for every closure made on each call of a hot function, where the name V8 gave
 * the function is already right: an `Object.defineProperty` call a closure, ~10% of answering
 * a check-turn request (docs/performance.md). The helper
 * then defines the name only when it differs.
 */
function cheaperKeepNames(bundle) {
  const from =
    'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
  const to =
    'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });';
  if (!bundle.includes(from))
    throw new Error("bundle-services: esbuild's __name helper has changed");
  return bundle.replace(from, to);
}

for (const service of SERVICES) await bundle(service);

async function bundle(service) {
  const entry = resolve(root, `dist/services/${service}/main.js`);
  const banner = `/* dirigent: ${service} bundle (scripts/bundle-services.mjs) */`;
  const source = await readFile(entry, 'utf8');
  if (source.startsWith(banner)) {
    process.stderr.write(
      `bundle-services: ${service}'s main.js is already a bundle (run tsc to rebuild it)\n`,
    );
    return;
  }
  // Per process: two builds at once (CI and a bench, say) must not write one temp file.
  const tmp = `${entry}.${process.pid}.bundle.tmp`;
  await build({
    entryPoints: [entry],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    keepNames: true,
    banner: { js: banner },
    plugins: [externals, mikroOrmNestDrivers],
    logLevel: 'warning',
  });
  await writeFile(tmp, cheaperKeepNames(await readFile(tmp, 'utf8')));
  await rename(tmp, entry);
  // tsc's map describes the file replaced.
  await rm(`${entry}.map`, { force: true });
}
