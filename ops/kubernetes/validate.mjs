// Offline checks of the Kubernetes manifests: no cluster, no network once `npm ci` has run.
//
//   cd ops/kubernetes && npm ci && node validate.mjs
//
// Needs kubectl 1.21 or newer on the PATH (KUBECTL names another): its `kubectl kustomize` (kustomize v4 or
// newer) builds the kustomizations; no cluster is contacted.
//
// 1. Every object in base/*.yaml (and the objects an overlay generates, and the example Secrets) is built with the
//    kubernetes-models class of its apiVersion/kind and validated against the API's JSON schema (Kubernetes 1.27,
//    Prometheus Operator CRDs). An unknown kind fails. Like `kubectl apply` without --validate=strict, the schemas
//    do not reject unknown fields: the security settings below are therefore asserted by value, so a misspelt
//    field fails there.
// 2. base/kustomization.yaml lists exactly the files of base/; overlays point at what exists. Every kustomization
//    is built with `kubectl kustomize`, and every built object is validated as in 1.
// 3. base/prometheusrule.yaml carries exactly the groups of ops/prometheus/*.rules.yml.
// 4. What a reviewer of this worker's deployment would check by hand.
// 5. What a cluster's admission policies check (policies.mjs): Pod Security `restricted` for every pod, the
//    NetworkPolicies against the ports the pods listen on and dial, resources; and migration/, the release's
//    pre-rollout Job, with each overlay's migrate/ folder.
//
// One line per check, then "N passed, M failed"; exit 1 on any failure.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parseAllDocuments } from "yaml";
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { sourceGroups, ruleFiles } from "./generate-prometheusrule.mjs";
import { grantsConfigMap } from "./generate-migration-grants.mjs";
import { bootstrapPorts, egressAllows, resolvePort, restrictedViolations, rulePorts, urlPort } from "./policies.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const BASE = join(here, "base");
const OVERLAYS = join(here, "overlays");
const EXAMPLES = join(here, "examples");
const MIGRATION = join(here, "migration");
// What builds the kustomizations (see build()).
const kubectl = process.env.KUBECTL || onPath("kubectl");
const builds = new Map(); // folder -> { objects } or { error }, see build()

const MODELS = new Map(
  [ConfigMap, Namespace, Secret, Service, ServiceAccount, Deployment, Job, NetworkPolicy, PodDisruptionBudget, PrometheusRule, ServiceMonitor].map((m) => [
    `${m.apiVersion}/${m.kind}`,
    m,
  ]),
);

// ---------------------------------------------------------------------------------------------------------------
// reporting
let passed = 0;
let failed = 0;
function check(name, fn) {
  try {
    const detail = fn();
    passed++;
    console.log(`ok   ${name}${detail ? ` (${detail})` : ""}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}
function expectEqual(actual, expected, what) {
  expect(isDeepStrictEqual(actual, expected), `${what} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// loading
function loadYaml(path) {
  const docs = parseAllDocuments(readFileSync(path, "utf8"));
  return docs.map((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${rel(path)} document ${i + 1}: ${doc.errors[0].message}`);
    return doc.toJS();
  }).filter((o) => o !== null);
}
function rel(path) {
  return relative(here, path);
}
function yamlFiles(dir) {
  return readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
}
function validateObject(obj, where) {
  const key = `${obj?.apiVersion}/${obj?.kind}`;
  const Model = MODELS.get(key);
  expect(Model, `${where}: unknown kind ${key} (known: ${[...MODELS.keys()].join(", ")})`);
  new Model(obj).validate();
  return key;
}

const baseFiles = yamlFiles(BASE).filter((f) => f !== "kustomization.yaml");
const objects = []; // {file, obj}
for (const file of baseFiles) {
  let docs;
  try {
    docs = loadYaml(join(BASE, file));
  } catch (e) {
    check(`base/${file} parses`, () => {
      throw e;
    });
    continue;
  }
  docs.forEach((obj, i) => objects.push({ file, index: i, obj }));
}

// ---------------------------------------------------------------------------------------------------------------
// 1. schemas
for (const { file, index, obj } of objects) {
  check(`schema: base/${file}#${index + 1} ${obj?.kind ?? "?"}/${obj?.metadata?.name ?? "?"}`, () =>
    validateObject(obj, `base/${file}`),
  );
}

function one(kind) {
  const found = objects.filter((o) => o.obj?.kind === kind).map((o) => o.obj);
  if (found.length !== 1) throw new Error(`expected exactly one ${kind} in base/, found ${found.length}`);
  return found[0];
}
function safe(fn) {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
const deployment = safe(() => one("Deployment"));
const service = safe(() => one("Service"));
const pdb = safe(() => one("PodDisruptionBudget"));
const serviceMonitor = safe(() => one("ServiceMonitor"));
const prometheusRule = safe(() => one("PrometheusRule"));
const serviceAccount = safe(() => one("ServiceAccount"));
const networkPolicy = safe(() => one("NetworkPolicy"));
const podSpec = deployment?.spec?.template?.spec ?? {};
const containers = [...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])];
const podLabels = deployment?.spec?.template?.metadata?.labels ?? {};

// migration/: the release's pre-rollout Job and what it needs.
const migrationFiles = existsSync(MIGRATION) ? yamlFiles(MIGRATION).filter((f) => f !== "kustomization.yaml") : [];
const migrationObjects = migrationFiles.flatMap((file) => safe(() => loadYaml(join(MIGRATION, file)).map((obj) => ({ file, obj }))) ?? []);
function oneMigration(kind) {
  const found = migrationObjects.filter((o) => o.obj?.kind === kind).map((o) => o.obj);
  if (found.length !== 1) throw new Error(`expected exactly one ${kind} in migration/, found ${found.length}`);
  return found[0];
}
const job = safe(() => oneMigration("Job"));
const jobPodSpec = job?.spec?.template?.spec ?? {};
const jobLabels = job?.spec?.template?.metadata?.labels ?? {};
const jobContainers = [...(jobPodSpec.containers ?? []), ...(jobPodSpec.initContainers ?? [])];

check("base has exactly one of each: Deployment, Service, PodDisruptionBudget, ServiceMonitor, PrometheusRule, ServiceAccount, NetworkPolicy", () => {
  for (const kind of ["Deployment", "Service", "PodDisruptionBudget", "ServiceMonitor", "PrometheusRule", "ServiceAccount", "NetworkPolicy"]) one(kind);
});
check("no Secret in base (credentials never in git)", () => {
  const secrets = objects.filter((o) => o.obj?.kind === "Secret").map((o) => o.file);
  expect(secrets.length === 0, `Secret in ${secrets.join(", ")}`);
});

// ---------------------------------------------------------------------------------------------------------------
// 2. kustomizations
const baseKustomization = loadYaml(join(BASE, "kustomization.yaml"))[0];
check("base/kustomization.yaml lists every file of base/ and nothing else", () => {
  const listed = baseKustomization?.resources ?? [];
  const missing = baseFiles.filter((f) => !listed.includes(f));
  const extra = listed.filter((f) => !baseFiles.includes(f));
  const dup = listed.filter((f, i) => listed.indexOf(f) !== i);
  expect(missing.length === 0, `not listed: ${missing.join(", ")}`);
  expect(extra.length === 0, `listed but not in base/: ${extra.join(", ")}`);
  expect(dup.length === 0, `listed twice: ${dup.join(", ")}`);
  return `${listed.length} resources`;
});
check("base/kustomization.yaml is plain kustomize (no generators of values, no Helm)", () => {
  for (const key of ["helmCharts", "helmChartInflationGenerator", "secretGenerator", "configMapGenerator"]) {
    expect(!(key in baseKustomization), `${key} in the base: per-environment values belong in an overlay`);
  }
});

const overlayDirs = existsSync(OVERLAYS)
  ? readdirSync(OVERLAYS).filter((d) => statSync(join(OVERLAYS, d)).isDirectory()).sort()
  : [];
check("there is at least one overlay", () => {
  expect(overlayDirs.length > 0, "no folder under overlays/");
  return overlayDirs.join(", ");
});

// Every configMapKeyRef / secretKeyRef of the pod, with whether it is optional.
const keyRefs = containers.flatMap((c) =>
  (c.env ?? []).flatMap((e) => {
    const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
    if (!ref) return [];
    const kind = e.valueFrom.configMapKeyRef ? "ConfigMap" : "Secret";
    return [{ env: e.name, kind, name: ref.name, key: ref.key, optional: ref.optional === true }];
  }),
);

for (const dir of overlayDirs) {
  const path = join(OVERLAYS, dir, "kustomization.yaml");
  let k;
  check(`overlays/${dir}/kustomization.yaml parses`, () => {
    k = loadYaml(path)[0];
    expect(k?.kind === "Kustomization", "kind is not Kustomization");
  });
  if (!k) continue;
  check(`overlays/${dir}: every resource exists and the base is one of them`, () => {
    const resources = k.resources ?? [];
    for (const r of resources) expect(existsSync(resolve(OVERLAYS, dir, r)), `${r} does not exist`);
    expect(resources.some((r) => resolve(OVERLAYS, dir, r) === BASE), "does not build on ../../base");
    for (const r of resources) {
      const p = resolve(OVERLAYS, dir, r);
      if (statSync(p).isFile()) loadYaml(p).forEach((obj) => validateObject(obj, relative(here, p)));
    }
  });
  check(`overlays/${dir}: sets a namespace and pins the image`, () => {
    expect(typeof k.namespace === "string" && k.namespace.length > 0, "no namespace");
    const image = (k.images ?? []).find((i) => i.name === "conference-room-reaper");
    expect(image && (image.newTag || image.digest), "no images entry with newTag or digest for conference-room-reaper");
    return `${k.namespace}, ${image.newName ?? image.name}:${image.newTag ?? image.digest}`;
  });
  // The ConfigMaps the overlay generates, as kustomize builds them (named <generator>-<hash>), against the pod's refs.
  check(`overlays/${dir}: the generated ConfigMap has every required key the pod reads, and no other`, () => {
    const built = build(join(OVERLAYS, dir));
    const generated = (k.configMapGenerator ?? []).map((g) => {
      const cms = built.filter((o) => o.kind === "ConfigMap" && new RegExp(`^${g.name}-[a-z0-9]{10}$`).test(o.metadata.name));
      expectEqual(cms.length, 1, `built ConfigMaps of generator ${g.name}`);
      return { ...cms[0], metadata: { ...cms[0].metadata, name: g.name }, data: cms[0].data ?? {} };
    });
    for (const ref of keyRefs.filter((r) => r.kind === "ConfigMap")) {
      const cm = generated.find((c) => c.metadata.name === ref.name);
      if (!ref.optional) {
        expect(cm, `${ref.env} needs ConfigMap ${ref.name}, not generated`);
        expect(ref.key in cm.data, `${ref.env} needs key ${ref.key} of ConfigMap ${ref.name}, not generated`);
      }
    }
    for (const cm of generated) {
      for (const key of Object.keys(cm.data)) {
        expect(keyRefs.some((r) => r.name === cm.metadata.name && r.key === key), `key ${key} of ${cm.metadata.name} is read by nothing`);
      }
    }
    return `${generated.length} ConfigMap(s)`;
  });
  check(`overlays/${dir}: no Secret, no secretGenerator (credentials never in git)`, () => {
    expect(!k.secretGenerator, "secretGenerator present");
  });
}

// The built kustomizations, by `kubectl kustomize` (kubectl >= 1.21; it needs no cluster).
check("kubectl is there and embeds kustomize v4 or newer", () => {
  expect(kubectl, "no kubectl on the PATH (nor KUBECTL): install kubectl 1.21 or newer (Debian's kubernetes-client 1.20 is too old)");
  const version = spawnSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 30_000 });
  expect(version.status === 0, `${kubectl} version --client exited ${version.status}: ${(version.stderr || String(version.error)).trim()}`);
  const v = JSON.parse(version.stdout);
  const kustomize = v.kustomizeVersion ?? "none reported";
  const major = Number(/^v(\d+)\./.exec(kustomize)?.[1] ?? 0);
  expect(major >= 4, `${kubectl} ${v.clientVersion?.gitVersion} embeds kustomize ${kustomize}; these kustomizations need v4 or newer (kubectl 1.21+)`);
  return `${kubectl} ${v.clientVersion?.gitVersion}, kustomize ${kustomize}`;
});
for (const dir of [BASE, MIGRATION, ...overlayDirs.flatMap((d) => [join(OVERLAYS, d), join(OVERLAYS, d, "migrate")])]) {
  if (!existsSync(join(dir, "kustomization.yaml"))) continue;
  check(`${rel(dir)}: kubectl kustomize builds it and every built object is valid`, () => {
    const docs = build(dir);
    docs.forEach((obj) => validateObject(obj, `built ${obj.kind}/${obj.metadata?.name}`));
    return `${docs.length} objects`;
  });
}
for (const dir of overlayDirs) {
  check(`overlays/${dir}: the built Deployment reads the generated ConfigMap by its hashed name`, () => {
    const docs = build(join(OVERLAYS, dir));
    const cm = docs.find((o) => o.kind === "ConfigMap" && /^conference-room-reaper-[a-z0-9]{10}$/.test(o.metadata.name));
    const deploy = docs.find((o) => o.kind === "Deployment");
    const refs = JSON.stringify(deploy.spec.template.spec).match(/"name":"conference-room-reaper(-[a-z0-9]+)?"/g) ?? [];
    expect(cm, "no generated ConfigMap conference-room-reaper-<hash>");
    expect(refs.includes(`"name":"${cm.metadata.name}"`), `no reference to ${cm.metadata.name} in the pod`);
    expect(!refs.includes('"name":"conference-room-reaper"'), "a configMapKeyRef still names the unhashed ConfigMap");
    return cm.metadata.name;
  });
}

check("examples/*.yaml are valid and referenced by no kustomization", () => {
  const files = existsSync(EXAMPLES) ? yamlFiles(EXAMPLES) : [];
  expect(files.length > 0, "no example Secret");
  const kustomizations = [
    join(BASE, "kustomization.yaml"),
    join(MIGRATION, "kustomization.yaml"),
    ...overlayDirs.flatMap((d) => [join(OVERLAYS, d, "kustomization.yaml"), join(OVERLAYS, d, "migrate", "kustomization.yaml")]),
  ].filter((k) => existsSync(k));
  for (const kpath of kustomizations) {
    // The parsed document, not the text: a comment may point readers at the examples.
    expect(!JSON.stringify(loadYaml(kpath)).includes("examples/"), `${rel(kpath)} refers to examples/`);
  }
  let n = 0;
  for (const f of files) for (const obj of loadYaml(join(EXAMPLES, f))) (validateObject(obj, `examples/${f}`), n++);
  return `${n} object(s)`;
});
check("the example Secrets carry every Secret key the pods (worker and migration Job) read", () => {
  const secrets = files(EXAMPLES).flatMap((f) => loadYaml(join(EXAMPLES, f))).filter((o) => o.kind === "Secret");
  const jobSecretRefs = jobContainers.flatMap((c) =>
    (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => ({ env: e.name, ...e.valueFrom.secretKeyRef })),
  );
  for (const ref of [...keyRefs.filter((r) => r.kind === "Secret"), ...jobSecretRefs]) {
    const s = secrets.find((x) => x.metadata.name === ref.name);
    expect(s, `${ref.env}: no example of Secret ${ref.name}`);
    expect(ref.key in { ...s.data, ...s.stringData }, `${ref.env}: example Secret ${ref.name} has no key ${ref.key}`);
  }
});
function files(dir) {
  return existsSync(dir) ? yamlFiles(dir) : [];
}

// ---------------------------------------------------------------------------------------------------------------
// 3. the PrometheusRule is the rule files
check("prometheusrule.yaml groups deep-equal ops/prometheus/*.rules.yml (run generate-prometheusrule.mjs)", () => {
  const expected = sourceGroups();
  const actual = prometheusRule?.spec?.groups;
  expect(Array.isArray(actual), "no spec.groups");
  const diff = firstDifference(actual, expected, "spec.groups");
  expect(diff === null, `differs at ${diff}`);
  const rules = expected.reduce((n, g) => n + g.rules.length, 0);
  return `${ruleFiles().map((f) => basename(f)).join(", ")}: ${expected.length} group(s), ${rules} rules`;
});
check("rule group names are unique (Prometheus refuses duplicates in one object)", () => {
  const names = (prometheusRule?.spec?.groups ?? []).map((g) => g.name);
  expectEqual(names.filter((n, i) => names.indexOf(n) !== i), [], "duplicate names");
});
function firstDifference(a, b, path, theirs = "the rule file's") {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`, theirs);
      if (d) return d;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${theirs} ${JSON.stringify(b)?.slice(0, 120)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// 4. what a reviewer checks
check("Deployment: 2 replicas (the advisory run lock makes the second a hot standby)", () => {
  expectEqual(deployment.spec.replicas, 2, "spec.replicas");
});
check("Deployment: rolling update never drops below the desired count (maxUnavailable 0, maxSurge >= 1)", () => {
  const ru = deployment.spec.strategy?.rollingUpdate ?? {};
  expectEqual(deployment.spec.strategy?.type, "RollingUpdate", "strategy.type");
  expectEqual(ru.maxUnavailable, 0, "maxUnavailable");
  expect(ru.maxSurge === 1 || ru.maxSurge === "25%" || (Number.isInteger(ru.maxSurge) && ru.maxSurge >= 1), `maxSurge ${ru.maxSurge}`);
});
check("Deployment: selector matches the pod template labels", () => {
  const sel = deployment.spec.selector.matchLabels;
  for (const [k, v] of Object.entries(sel)) expectEqual(podLabels[k], v, `template label ${k}`);
});
check("pod: image conference-room-reaper:<tag>, args [run], port 8080 named http", () => {
  const c = podSpec.containers[0];
  expect(/^conference-room-reaper:[\w.-]+$/.test(c.image), `image ${c.image}`);
  expectEqual(c.args, ["run"], "args");
  expect((c.ports ?? []).some((p) => p.name === "http" && p.containerPort === 8080), "no containerPort 8080 named http");
});
check("pod: no service account token, dedicated ServiceAccount", () => {
  expectEqual(podSpec.automountServiceAccountToken, false, "pod automountServiceAccountToken");
  expectEqual(serviceAccount.automountServiceAccountToken, false, "ServiceAccount automountServiceAccountToken");
  expectEqual(podSpec.serviceAccountName, serviceAccount.metadata.name, "serviceAccountName");
});
check("pod securityContext: non-root 10001:10001, seccomp RuntimeDefault", () => {
  const sc = podSpec.securityContext ?? {};
  expectEqual(sc.runAsNonRoot, true, "runAsNonRoot");
  expectEqual(sc.runAsUser, 10001, "runAsUser");
  expectEqual(sc.runAsGroup, 10001, "runAsGroup");
  expectEqual(sc.seccompProfile?.type, "RuntimeDefault", "seccompProfile.type");
});
for (const c of containers) {
  check(`container ${c.name}: readOnlyRootFilesystem, runAsNonRoot, no privilege escalation, drop ALL`, () => {
    const sc = c.securityContext ?? {};
    expectEqual(sc.readOnlyRootFilesystem, true, "readOnlyRootFilesystem");
    expectEqual(sc.runAsNonRoot ?? podSpec.securityContext?.runAsNonRoot, true, "runAsNonRoot");
    expectEqual(sc.allowPrivilegeEscalation, false, "allowPrivilegeEscalation");
    expect(sc.privileged !== true, "privileged");
    expectEqual(sc.capabilities?.drop, ["ALL"], "capabilities.drop");
    expect(!(sc.capabilities?.add?.length > 0), `capabilities.add ${sc.capabilities?.add}`);
  });
  check(`container ${c.name}: /tmp is a writable emptyDir (the only one)`, () => {
    const mounts = c.volumeMounts ?? [];
    const tmp = mounts.find((m) => m.mountPath === "/tmp");
    expect(tmp, "no mount at /tmp");
    const vol = (podSpec.volumes ?? []).find((v) => v.name === tmp.name);
    expect(vol?.emptyDir, `volume ${tmp.name} is not an emptyDir`);
    const others = mounts.filter((m) => m !== tmp && m.readOnly !== true).map((m) => m.mountPath);
    expectEqual(others, [], "other writable mounts");
  });
  check(`container ${c.name}: requests cpu+memory, memory limit >= request`, () => {
    const r = c.resources ?? {};
    expect(r.requests?.cpu, "no requests.cpu");
    expect(r.requests?.memory, "no requests.memory");
    expect(r.limits?.memory, "no limits.memory");
    expect(bytes(r.limits.memory) >= bytes(r.requests.memory), `limit ${r.limits.memory} < request ${r.requests.memory}`);
    // docs/benchmarks.md: RSS 176-192 MB with -Xmx160m; a request below that would be a lie to the scheduler.
    expect(bytes(r.requests.memory) >= 192e6, `requests.memory ${r.requests.memory} below the measured RSS of 192 MB`);
    return `requests ${r.requests.cpu}/${r.requests.memory}, limit ${r.limits.memory}`;
  });
  check(`container ${c.name}: startup, liveness and readiness probes on the actuator, HTTP probes time out in <= 1 s`, () => {
    expectEqual(c.startupProbe?.httpGet?.path, "/actuator/health/liveness", "startupProbe path");
    expectEqual(c.livenessProbe?.httpGet?.path, "/actuator/health/liveness", "livenessProbe path");
    expectEqual(c.readinessProbe?.httpGet?.path, "/actuator/health/readiness", "readinessProbe path");
    for (const p of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      const probe = c[p];
      if (probe?.httpGet) {
        expect(probe.httpGet.port === "http" || probe.httpGet.port === 8080, `${p} port ${probe.httpGet.port}`);
        // Unset means the API default of 1 s.
        expect((probe.timeoutSeconds ?? 1) <= 1, `${p}.timeoutSeconds ${probe.timeoutSeconds}`);
      }
    }
    const budget = (c.startupProbe.periodSeconds ?? 10) * (c.startupProbe.failureThreshold ?? 3);
    expect(budget >= 60, `startupProbe allows only ${budget} s for start-up`);
    return `start-up budget ${budget} s`;
  });
  check(`container ${c.name}: no literal credentials in env (passwords, users, URLs, JAAS come from secretKeyRef)`, () => {
    const sensitive = /PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|JAAS|_USERNAME$|_USER$|DATASOURCE_URL|API_KEY/;
    const bad = [];
    for (const e of c.env ?? []) {
      if (sensitive.test(e.name) && !e.valueFrom?.secretKeyRef) bad.push(`${e.name} not from a secretKeyRef`);
      if (e.value !== undefined && /password|passwd|secret|jaas|:\/\/[^/\s]*:[^@/\s]*@/i.test(e.value)) bad.push(`${e.name} has a credential-like literal`);
    }
    expect(!(c.envFrom ?? []).some((f) => f.secretRef === undefined && f.configMapRef === undefined), "odd envFrom");
    expectEqual(bad, [], "env");
    for (const name of ["SPRING_DATASOURCE_URL", "SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD"]) {
      const e = (c.env ?? []).find((x) => x.name === name);
      expect(e?.valueFrom?.secretKeyRef && e.valueFrom.secretKeyRef.optional !== true, `${name} is not a required secretKeyRef`);
    }
    const jaas = (c.env ?? []).find((x) => x.name === "SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG");
    expect(jaas?.valueFrom?.secretKeyRef, "SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG not from a Secret");
  });
  check(`container ${c.name}: the broker is required`, () => {
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
    const kafka = env.SPRING_KAFKA_BOOTSTRAP_SERVERS?.valueFrom;
    const ref = kafka?.configMapKeyRef ?? kafka?.secretKeyRef;
    expect(ref && ref.optional !== true, "SPRING_KAFKA_BOOTSTRAP_SERVERS missing or optional (the relay would be off, silently)");
    expect(env.REAPER_RECORDER_BASE_URL?.valueFrom?.configMapKeyRef, "REAPER_RECORDER_BASE_URL not from the ConfigMap");
  });
}
check("pod: terminationGracePeriodSeconds covers the loop's drain (max-run-duration 30 s + statement-timeout 10 s + 5 s)", () => {
  expect(podSpec.terminationGracePeriodSeconds >= 45, `terminationGracePeriodSeconds ${podSpec.terminationGracePeriodSeconds}`);
  return `${podSpec.terminationGracePeriodSeconds} s`;
});
check("pod: spread over nodes (topologySpreadConstraints or podAntiAffinity on kubernetes.io/hostname)", () => {
  const spread = (podSpec.topologySpreadConstraints ?? []).some(
    (t) => t.topologyKey === "kubernetes.io/hostname" && matches(t.labelSelector, podLabels),
  );
  const anti = [
    ...(podSpec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p) => p.podAffinityTerm),
    ...(podSpec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
  ].some((t) => t.topologyKey === "kubernetes.io/hostname" && matches(t.labelSelector, podLabels));
  expect(spread || anti, "no constraint on kubernetes.io/hostname selecting these pods");
});
check("pod: service links off (Service env vars would be bound by Spring as properties)", () => {
  expectEqual(podSpec.enableServiceLinks, false, "enableServiceLinks");
});
check("Service: ClusterIP, port http -> container port http, selects the pods, lists unready pods", () => {
  expectEqual(service.spec.type ?? "ClusterIP", "ClusterIP", "type");
  const port = (service.spec.ports ?? []).find((p) => p.name === "http");
  expect(port?.port === 8080 && (port.targetPort === "http" || port.targetPort === 8080), `port ${JSON.stringify(port)}`);
  expect(matches({ matchLabels: service.spec.selector }, podLabels), "selector does not match the pod labels");
  expectEqual(service.spec.publishNotReadyAddresses, true, "publishNotReadyAddresses");
});
check("PodDisruptionBudget: selects the pods, keeps one running with 2 replicas", () => {
  expect(matches(pdb.spec.selector, podLabels), "selector does not match the pod labels");
  const ok = pdb.spec.maxUnavailable === 1 || pdb.spec.minAvailable === 1;
  expect(ok, `maxUnavailable ${pdb.spec.maxUnavailable} / minAvailable ${pdb.spec.minAvailable}`);
});
check("ServiceMonitor: /actuator/prometheus on port http every 30s, timeout 10s, selects the Service", () => {
  const ep = serviceMonitor.spec.endpoints ?? [];
  expectEqual(ep.length, 1, "endpoints");
  expectEqual([ep[0].port, ep[0].path, ep[0].interval, ep[0].scrapeTimeout], ["http", "/actuator/prometheus", "30s", "10s"], "port/path/interval/scrapeTimeout");
  expect(matches(serviceMonitor.spec.selector, service.metadata.labels ?? {}), "selector does not match the Service labels");
  expect((service.spec.ports ?? []).some((p) => p.name === ep[0].port), `Service has no port named ${ep[0].port}`);
});
check("ServiceMonitor: the scraped job label is the job the alert rules select", () => {
  const jobs = new Set();
  const walk = (g) => g.rules.forEach((r) => [...String(r.expr).matchAll(/job="([^"]+)"/g)].forEach((m) => jobs.add(m[1])));
  sourceGroups().forEach(walk);
  expectEqual([...jobs], ["conference-room-reaper"], "jobs in the rules");
  const job = serviceMonitor.spec.jobLabel ? service.metadata.labels?.[serviceMonitor.spec.jobLabel] : service.metadata.name;
  expectEqual(job, "conference-room-reaper", `job (from ${serviceMonitor.spec.jobLabel ? `Service label ${serviceMonitor.spec.jobLabel}` : "the Service name"})`);
});

// ---------------------------------------------------------------------------------------------------------------
// 5. what a cluster's admission policies check, and the migration Job
const allPods = [
  { what: "Deployment", spec: podSpec, annotations: deployment?.spec?.template?.metadata?.annotations },
  { what: "migration Job", spec: jobPodSpec, annotations: job?.spec?.template?.metadata?.annotations },
];
for (const { what, spec, annotations } of allPods) {
  check(`Pod Security restricted: the ${what}'s pod satisfies it`, () => {
    expect((spec.containers ?? []).length > 0, "no containers");
    expectEqual(restrictedViolations(spec, annotations), [], "violations");
  });
}
check("Pod Security restricted: the checker refuses each violation in a copy of the worker's pod", () => {
  const broken = {
    "hostNetwork": (p) => (p.hostNetwork = true),
    "privileged": (p) => (p.containers[0].securityContext.privileged = true),
    "allowPrivilegeEscalation": (p) => (p.containers[0].securityContext.allowPrivilegeEscalation = true),
    "capabilities not dropped": (p) => (p.containers[0].securityContext.capabilities = {}),
    "capability added": (p) => (p.containers[0].securityContext.capabilities.add = ["SYS_ADMIN"]),
    "root allowed": (p) => ((p.securityContext.runAsNonRoot = false), delete p.containers[0].securityContext.runAsNonRoot),
    "uid 0": (p) => (p.containers[0].securityContext.runAsUser = 0),
    "seccomp Unconfined": (p) => ((p.securityContext.seccompProfile.type = "Unconfined"), delete p.containers[0].securityContext.seccompProfile),
    "hostPath volume": (p) => p.volumes.push({ name: "host", hostPath: { path: "/" } }),
    "hostPort": (p) => (p.containers[0].ports[0].hostPort = 8080),
  };
  const missed = Object.entries(broken).filter(([, mutate]) => {
    const copy = structuredClone(podSpec);
    mutate(copy);
    return restrictedViolations(copy).length === 0;
  });
  expectEqual(missed.map(([name]) => name), [], "violations the checker missed");
  return `${Object.keys(broken).length} violations refused`;
});
for (const c of [...containers, ...jobContainers]) {
  check(`container ${c.name}: requests ephemeral-storage (covering its /tmp emptyDir); any CPU or storage limit >= its request`, () => {
    const r = c.resources ?? {};
    expect(r.requests?.["ephemeral-storage"], "no requests.ephemeral-storage");
    const spec = jobContainers.includes(c) ? jobPodSpec : podSpec;
    for (const m of c.volumeMounts ?? []) {
      const limit = (spec.volumes ?? []).find((v) => v.name === m.name)?.emptyDir?.sizeLimit;
      if (limit) expect(bytes(limit) <= bytes(r.requests["ephemeral-storage"]), `emptyDir ${m.name} sizeLimit ${limit} above the request`);
    }
    if (r.limits?.cpu) expect(cores(r.limits.cpu) >= cores(r.requests?.cpu ?? "0"), `limits.cpu ${r.limits.cpu} < requests.cpu`);
    if (r.limits?.["ephemeral-storage"]) {
      expect(bytes(r.limits["ephemeral-storage"]) >= bytes(r.requests["ephemeral-storage"]), "ephemeral-storage limit < request");
    }
    return `ephemeral-storage ${r.requests["ephemeral-storage"]}${r.limits?.cpu ? `, cpu limit ${r.limits.cpu}` : ""}`;
  });
}

// The worker's NetworkPolicy: ingress only to the port Prometheus scrapes, egress only on named ports.
const httpPort = resolvePort("http", podSpec.containers?.[0] ?? {});
check("NetworkPolicy: selects the worker's pods (not the migration's), both directions", () => {
  expect(matches(networkPolicy.spec.podSelector, podLabels), "podSelector does not match the pod labels");
  expect(!matches(networkPolicy.spec.podSelector, jobLabels), "podSelector also selects the migration pod");
  expectEqual([...(networkPolicy.spec.policyTypes ?? [])].sort(), ["Egress", "Ingress"], "policyTypes");
});
check("NetworkPolicy: ingress only from a namespace, only to the container port the Service and ServiceMonitor use", () => {
  checkIngress(networkPolicy);
  const svcPort = (service.spec.ports ?? []).find((p) => p.name === serviceMonitor.spec.endpoints?.[0]?.port);
  expectEqual(resolvePort(svcPort?.targetPort, podSpec.containers[0]), httpPort, "the Service's targetPort");
  return `port ${httpPort}`;
});
check("NetworkPolicy: every egress rule names its ports; DNS (53 UDP and TCP) to kube-dns", () => {
  checkEgressShape(networkPolicy);
  return (networkPolicy.spec.egress ?? []).map((r) => rulePorts(r).join("+")).join(", ");
});
function checkIngress(policy) {
  const rules = policy.spec.ingress ?? [];
  expect(rules.length > 0, "no ingress rule: Prometheus could not scrape");
  for (const r of rules) {
    expect((r.from ?? []).length > 0 && r.from.every((f) => f.namespaceSelector || f.ipBlock), "an ingress rule without a namespaceSelector or ipBlock peer");
    expect((r.ports ?? []).length > 0, "an ingress rule open on every port");
    for (const p of r.ports) expectEqual(resolvePort(p.port, podSpec.containers[0]), httpPort, `ingress port ${p.port}`);
  }
}
function checkEgressShape(policy) {
  for (const r of policy.spec.egress ?? []) expect((r.ports ?? []).length > 0, `an egress rule open on every port: ${JSON.stringify(r)}`);
  expect(egressAllows(policy, 53, "UDP") && egressAllows(policy, 53, "TCP"), "no DNS rule (53 UDP and TCP, with a to)");
}
/** The egress rules that are not DNS: for the migration, PostgreSQL's. */
function nonDnsRules(policy) {
  return (policy.spec.egress ?? []).filter((r) => !rulePorts(r).every((p) => p.startsWith("53/")));
}

// migration/
check("migration/kustomization.yaml lists every file of migration/ and nothing else", () => {
  const listed = loadYaml(join(MIGRATION, "kustomization.yaml"))[0]?.resources ?? [];
  expectEqual([...listed].sort(), [...migrationFiles].sort(), "resources");
});
for (const { file, obj } of migrationObjects) {
  check(`schema: migration/${file} ${obj?.kind}/${obj?.metadata?.name}`, () => validateObject(obj, `migration/${file}`));
}
check("migration/grants-configmap.yaml is ops/sql/least-privilege-grants.sql (run generate-migration-grants.mjs)", () => {
  const cm = oneMigration("ConfigMap");
  const diff = firstDifference(cm, grantsConfigMap(), "ConfigMap");
  expect(diff === null, `differs at ${diff}`);
});
check("migration Job: `migrate` in the worker's image, once (restartPolicy Never), bounded, removed after a day", () => {
  const c = jobPodSpec.containers?.[0] ?? {};
  expectEqual(jobPodSpec.containers.length, 1, "containers");
  expectEqual(c.args, ["migrate"], "args");
  expectEqual(c.image, podSpec.containers[0].image, "image (the Deployment's)");
  expectEqual(jobPodSpec.restartPolicy, "Never", "restartPolicy");
  expect(Number.isInteger(job.spec.backoffLimit) && job.spec.backoffLimit <= 3, `backoffLimit ${job.spec.backoffLimit}`);
  expect(job.spec.activeDeadlineSeconds > 0, "no activeDeadlineSeconds");
  expect(job.spec.ttlSecondsAfterFinished > 0, "no ttlSecondsAfterFinished");
  expectEqual([jobPodSpec.automountServiceAccountToken, jobPodSpec.enableServiceLinks], [false, false], "automountServiceAccountToken, enableServiceLinks");
  expectEqual(jobPodSpec.serviceAccountName, oneMigration("ServiceAccount").metadata.name, "serviceAccountName");
});
check("migration Job: the worker's database as the owner role, from Secrets; the grants mounted as Flyway's callback location", () => {
  const c = jobPodSpec.containers[0];
  const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
  const workerEnv = Object.fromEntries((podSpec.containers[0].env ?? []).map((e) => [e.name, e]));
  expectEqual(env.SPRING_DATASOURCE_URL?.valueFrom, workerEnv.SPRING_DATASOURCE_URL?.valueFrom, "SPRING_DATASOURCE_URL (the worker's)");
  for (const name of ["SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD"]) {
    const ref = env[name]?.valueFrom?.secretKeyRef;
    expect(ref && ref.optional !== true, `${name} is not a required secretKeyRef`);
    expect(ref.name !== workerEnv[name].valueFrom.secretKeyRef.name, `${name} comes from the worker's Secret, not the owner's`);
  }
  for (const e of c.env ?? []) expect(e.value === undefined || !/password|secret/i.test(e.value), `${e.name} has a credential-like literal`);
  const location = /^filesystem:(\/.*)$/.exec(env.SPRING_FLYWAY_CALLBACK_LOCATIONS?.value ?? "");
  expect(location, `SPRING_FLYWAY_CALLBACK_LOCATIONS is ${env.SPRING_FLYWAY_CALLBACK_LOCATIONS?.value}, expected filesystem:<dir>`);
  const mount = (c.volumeMounts ?? []).find((m) => m.mountPath === location[1]);
  expect(mount?.readOnly === true, `no read-only mount at ${location[1]}`);
  const vol = (jobPodSpec.volumes ?? []).find((v) => v.name === mount.name);
  expectEqual(vol?.configMap?.name, oneMigration("ConfigMap").metadata.name, `volume ${mount.name}'s ConfigMap`);
  expect(c.securityContext?.readOnlyRootFilesystem === true, "readOnlyRootFilesystem");
  const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === "/tmp");
  expect((jobPodSpec.volumes ?? []).find((v) => v.name === tmp?.name)?.emptyDir, "no emptyDir at /tmp");
});
check("migration Job: not selected by the worker's Service, PodDisruptionBudget or NetworkPolicy; its own NetworkPolicy selects it", () => {
  for (const [what, sel] of [["Service", { matchLabels: service.spec.selector }], ["PodDisruptionBudget", pdb.spec.selector], ["NetworkPolicy", networkPolicy.spec.podSelector]]) {
    expect(!matches(sel, jobLabels), `the worker's ${what} selects the migration pod`);
  }
  const policy = oneMigration("NetworkPolicy");
  expect(matches(policy.spec.podSelector, jobLabels), "the migration NetworkPolicy does not select the Job's pod");
  expectEqual([...(policy.spec.policyTypes ?? [])].sort(), ["Egress", "Ingress"], "policyTypes");
  expectEqual(policy.spec.ingress ?? [], [], "ingress (nothing talks to it)");
  checkEgressShape(policy);
  expectEqual(nonDnsRules(policy).flatMap(rulePorts), ["5432/TCP"], "egress other than DNS (PostgreSQL's only)");
});

// Each overlay: the restricted namespace, the migrate/ folder, and the built NetworkPolicies against the ConfigMap.
for (const dir of overlayDirs) {
  const k = safe(() => loadYaml(join(OVERLAYS, dir, "kustomization.yaml"))[0]);
  const mdir = join(OVERLAYS, dir, "migrate");
  if (!k) continue;
  check(`overlays/${dir}: its namespace enforces Pod Security restricted`, () => {
    const namespaces = (k.resources ?? [])
      .map((r) => resolve(OVERLAYS, dir, r))
      .filter((p) => existsSync(p) && statSync(p).isFile())
      .flatMap((p) => loadYaml(p))
      .filter((o) => o.kind === "Namespace");
    expectEqual(namespaces.map((n) => n.metadata.name), [k.namespace], "Namespace objects");
    const labels = namespaces[0].metadata.labels ?? {};
    expectEqual(labels["pod-security.kubernetes.io/enforce"], "restricted", "enforce label");
    expect(labels["pod-security.kubernetes.io/enforce-version"], "no enforce-version (pin it: a cluster upgrade would otherwise tighten it unannounced)");
    return `${k.namespace}: enforce restricted ${labels["pod-security.kubernetes.io/enforce-version"]}`;
  });
  let mk;
  check(`overlays/${dir}/migrate: builds on migration/ with the overlay's namespace and image`, () => {
    mk = loadYaml(join(mdir, "kustomization.yaml"))[0];
    expect((mk.resources ?? []).some((r) => resolve(mdir, r) === MIGRATION), "does not build on ../../../migration");
    expectEqual(mk.namespace, k.namespace, "namespace");
    expectEqual(mk.images, k.images, "images");
  });
  check(`overlays/${dir}: the built pods satisfy restricted, the built NetworkPolicies name every peer and agree with the ConfigMap`, () => {
    const app = build(join(OVERLAYS, dir));
    const migration = build(mdir);
    for (const obj of migration) validateObject(obj, `built migrate ${obj.kind}/${obj.metadata?.name}`);
    const deploy = app.find((o) => o.kind === "Deployment");
    const builtJob = migration.find((o) => o.kind === "Job");
    expectEqual(restrictedViolations(deploy.spec.template.spec), [], "Deployment violations");
    expectEqual(restrictedViolations(builtJob.spec.template.spec), [], "Job violations");
    expectEqual(builtJob.spec.template.spec.containers[0].image, deploy.spec.template.spec.containers[0].image, "the Job's image");
    expectEqual(builtJob.metadata.namespace, deploy.metadata.namespace, "the Job's namespace");

    const policy = app.find((o) => o.kind === "NetworkPolicy");
    checkIngress(policy);
    checkEgressShape(policy);
    for (const r of policy.spec.egress) expect((r.to ?? []).length > 0, `egress on ${rulePorts(r)} to anywhere: name the peers in the overlay`);
    const cm = app.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("conference-room-reaper-"));
    const kafka = bootstrapPorts(cm.data["kafka-bootstrap-servers"]);
    const recorder = cm.data["recorder-base-url"] ? [urlPort(cm.data["recorder-base-url"])] : [];
    for (const port of [...kafka, ...recorder]) expect(egressAllows(policy, port), `no egress rule to port ${port} (the ConfigMap's broker/recorder address)`);
    const named = new Set([...kafka, ...recorder].map((p) => `${p}/TCP`));
    const postgres = nonDnsRules(policy).filter((r) => !rulePorts(r).every((p) => named.has(p)));
    expectEqual(postgres.length, 1, "egress rules left for PostgreSQL (one, besides DNS, the brokers and the recorder)");
    const mpolicy = migration.find((o) => o.kind === "NetworkPolicy");
    checkEgressShape(mpolicy);
    expectEqual(nonDnsRules(mpolicy), postgres, "the migration's PostgreSQL rule (the worker's)");
    return `egress ${policy.spec.egress.map((r) => rulePorts(r).join("+")).join(", ")}; PostgreSQL ${rulePorts(postgres[0])}`;
  });
}
// The objects `kubectl kustomize dir` builds, built once per folder.
function build(dir) {
  if (!builds.has(dir)) {
    try {
      builds.set(dir, { objects: buildOnce(dir) });
    } catch (e) {
      builds.set(dir, { error: e });
    }
  }
  const { objects, error } = builds.get(dir);
  if (error) throw error;
  return objects;
}
function buildOnce(dir) {
  expect(kubectl, "no kubectl to build with");
  const built = spawnSync(kubectl, ["kustomize", dir], { encoding: "utf8", timeout: 60_000 });
  expect(built.status === 0, `kubectl kustomize ${rel(dir)} exited ${built.status}: ${(built.stderr || String(built.error)).trim()}`);
  return parseAllDocuments(built.stdout).map((d) => d.toJS()).filter((o) => o !== null);
}
function cores(q) {
  const m = /^(\d+(?:\.\d+)?)(m)?$/.exec(String(q));
  expect(m, `unparsable CPU quantity ${q}`);
  return Number(m[1]) / (m[2] ? 1000 : 1);
}

function matches(selector, labels) {
  const ml = selector?.matchLabels ?? {};
  return Object.keys(ml).length > 0 && Object.entries(ml).every(([k, v]) => labels[k] === v) && !(selector?.matchExpressions?.length > 0);
}
function onPath(command) {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir || ".", command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
function bytes(q) {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  expect(m, `unparsable quantity ${q}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]] ?? 1;
  return Number(m[1]) * unit;
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
