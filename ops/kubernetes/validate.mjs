// Offline checks of the Kubernetes manifests: no cluster, no kubectl, no network once `npm ci` has run.
//
//   cd ops/kubernetes && npm ci && node validate.mjs
//
// 1. Every object in base/*.yaml (and the objects an overlay generates, and the example Secrets) is built with the
//    kubernetes-models class of its apiVersion/kind and validated against the API's JSON schema (Kubernetes 1.27,
//    Prometheus Operator CRDs). An unknown kind fails. Like `kubectl apply` without --validate=strict, the schemas
//    do not reject unknown fields: the security settings below are therefore asserted by value, so a misspelt
//    field fails there.
// 2. base/kustomization.yaml lists exactly the files of base/; overlays point at what exists.
// 3. base/prometheusrule.yaml carries exactly the groups of ops/prometheus/*.rules.yml.
// 4. What a reviewer of this worker's deployment would check by hand.
//
// One line per check, then "N passed, M failed"; exit 1 on any failure.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parseAllDocuments } from "yaml";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { sourceGroups, ruleFiles } from "./generate-prometheusrule.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const BASE = join(here, "base");
const OVERLAYS = join(here, "overlays");
const EXAMPLES = join(here, "examples");

const MODELS = new Map(
  [ConfigMap, Secret, Service, ServiceAccount, Deployment, PodDisruptionBudget, PrometheusRule, ServiceMonitor].map((m) => [
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
const podSpec = deployment?.spec?.template?.spec ?? {};
const containers = [...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])];
const podLabels = deployment?.spec?.template?.metadata?.labels ?? {};

check("base has exactly one of each: Deployment, Service, PodDisruptionBudget, ServiceMonitor, PrometheusRule, ServiceAccount", () => {
  for (const kind of ["Deployment", "Service", "PodDisruptionBudget", "ServiceMonitor", "PrometheusRule", "ServiceAccount"]) one(kind);
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
  // The ConfigMap the overlay generates, as the object kustomize would make, against the schema and the pod's refs.
  check(`overlays/${dir}: the generated ConfigMap is valid and has every required key the pod reads`, () => {
    const generated = (k.configMapGenerator ?? []).map((g) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: g.name },
      data: Object.fromEntries((g.literals ?? []).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)])),
    }));
    generated.forEach((cm) => validateObject(cm, `overlays/${dir} configMapGenerator ${cm.metadata.name}`));
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

// The real build, where a kustomize is at hand (kubectl >= 1.14 embeds one; `kubectl kustomize` needs no cluster).
// Optional so that the checks above stay runnable with nothing but Node; reported as "skip" without it.
const kubectl = onPath("kubectl");
for (const dir of overlayDirs) {
  const name = `overlays/${dir}: kubectl kustomize builds it and every built object is valid`;
  if (!kubectl) {
    console.log(`skip ${name} (no kubectl on the PATH)`);
    continue;
  }
  check(name, () => {
    const built = spawnSync(kubectl, ["kustomize", join(OVERLAYS, dir)], { encoding: "utf8", timeout: 60_000 });
    expect(built.status === 0, `kubectl kustomize exited ${built.status}: ${(built.stderr || String(built.error)).trim()}`);
    const docs = parseAllDocuments(built.stdout).map((d) => d.toJS()).filter((o) => o !== null);
    docs.forEach((obj) => validateObject(obj, `built ${obj.kind}/${obj.metadata?.name}`));
    const cm = docs.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("conference-room-reaper-"));
    const deploy = docs.find((o) => o.kind === "Deployment");
    const refs = JSON.stringify(deploy.spec.template.spec).match(/"name":"conference-room-reaper(-[a-z0-9]+)?"/g) ?? [];
    expect(cm, "no generated ConfigMap conference-room-reaper-<hash>");
    expect(!refs.includes('"name":"conference-room-reaper"'), "a configMapKeyRef still names the unhashed ConfigMap");
    return `${docs.length} objects, ${built.stdout.length} bytes`;
  });
}

check("examples/*.yaml are valid and referenced by no kustomization", () => {
  const files = existsSync(EXAMPLES) ? yamlFiles(EXAMPLES) : [];
  expect(files.length > 0, "no example Secret");
  const kustomizations = [join(BASE, "kustomization.yaml"), ...overlayDirs.map((d) => join(OVERLAYS, d, "kustomization.yaml"))];
  for (const kpath of kustomizations) {
    // The parsed document, not the text: a comment may point readers at the examples.
    expect(!JSON.stringify(loadYaml(kpath)).includes("examples/"), `${rel(kpath)} refers to examples/`);
  }
  let n = 0;
  for (const f of files) for (const obj of loadYaml(join(EXAMPLES, f))) (validateObject(obj, `examples/${f}`), n++);
  return `${n} object(s)`;
});
check("the example Secrets carry every Secret key the pod reads", () => {
  const secrets = files(EXAMPLES).flatMap((f) => loadYaml(join(EXAMPLES, f))).filter((o) => o.kind === "Secret");
  for (const ref of keyRefs.filter((r) => r.kind === "Secret")) {
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
function firstDifference(a, b, path) {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs the rule file's ${JSON.stringify(b)?.slice(0, 120)}`;
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
