// An offline builder for exactly the kustomize features the kustomizations of ops/kubernetes use, so that
// validate.mjs can check the built overlays on a machine without a usable kustomize (Debian's kubectl 1.20 embeds
// kustomize v2.0.3, which cannot read our `patches`; npm has no kustomize). Where kubectl is on the PATH,
// validate.mjs builds with `kubectl kustomize` as well and requires the two outputs to be the same objects.
//
//   import { kustomizeBuild } from "./kustomize-lite.mjs";
//   const objects = kustomizeBuild("overlays/example");       // plain objects, in accumulation order
//
//   node kustomize-lite.mjs overlays/example                  # prints the build as YAML, like kubectl kustomize
//
// Implemented (what our files use), with kustomize v5's semantics as observed against `kubectl kustomize`
// (kustomize v5.5.0):
// - resources: YAML files (every document) and folders holding a kustomization.yaml, built recursively;
// - configMapGenerator with `name`, `literals` and `files`: the ConfigMap gets kustomize's content-hash suffix
//   after the whole build, and the Deployments', Jobs' ... pod references to it are renamed (envFrom,
//   configMapKeyRef, volumes, projected volumes);
// - patches: JSON 6902 operations with a `target` (group, version, kind, name, namespace), and strategic-merge
//   patches (by their own apiVersion/kind/name, or a `target`) whose lists Kubernetes replaces as a whole;
// - namespace (also the name of a Namespace object, as kustomize does);
// - images: newName, newTag, digest.
// Transformers run in kustomize's order: patches, namespace, images; hash suffixes and references last.
//
// Anything else throws an Error naming the field and the file: an unknown kustomization field, generator field,
// patch option, patch operation, a strategic-merge patch of a list Kubernetes merges by key, a kind whose
// namespace handling is special. Stricter than kustomize on purpose: a patch selecting no object is an error.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parseAllDocuments, stringify } from "yaml";

const KUSTOMIZATION_FIELDS = new Set(["apiVersion", "kind", "resources", "namespace", "images", "configMapGenerator", "patches"]);
const GENERATOR_FIELDS = new Set(["name", "literals", "files"]);
const IMAGE_FIELDS = new Set(["name", "newName", "newTag", "digest"]);
const PATCH_FIELDS = new Set(["path", "patch", "target"]);
const TARGET_FIELDS = new Set(["group", "version", "kind", "name", "namespace"]);

// Kinds without a namespace (kustomize leaves metadata.namespace unset on them; a Namespace is renamed instead).
const CLUSTER_SCOPED = new Set([
  "Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "PersistentVolume", "StorageClass",
  "PriorityClass", "IngressClass", "RuntimeClass", "CSIDriver", "CSINode", "VolumeAttachment", "Node",
  "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
]);
// Kinds on which kustomize's namespace transformer rewrites more than metadata (subjects, service references):
// not implemented, so refused rather than built differently.
const NAMESPACE_SPECIAL = new Set([
  "RoleBinding", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService",
  "CustomResourceDefinition",
]);
// Lists that a strategic merge patch merges element by element (a patch merge key, or a merged primitive list) in
// the Kubernetes API types; a strategic-merge patch reaching one of them is refused (other lists are replaced).
const MERGED_LISTS = new Set([
  "containers", "initContainers", "ephemeralContainers", "env", "volumes", "volumeMounts", "volumeDevices", "ports",
  "imagePullSecrets", "hostAliases", "topologySpreadConstraints", "resourceClaims", "finalizers", "ownerReferences",
  "conditions", "secrets", "subjects", "schedulingGates",
]);
// Where a pod spec sits, per kind.
const POD_SPEC = {
  Pod: ["spec"],
  Deployment: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  DaemonSet: ["spec", "template", "spec"],
  ReplicaSet: ["spec", "template", "spec"],
  ReplicationController: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
  CronJob: ["spec", "jobTemplate", "spec", "template", "spec"],
};

const GENERATED = Symbol("kustomize-lite generated ConfigMap (gets the hash suffix)");

/** Builds the kustomization in `dir` like `kubectl kustomize dir`; returns the objects. Throws on what it cannot. */
export function kustomizeBuild(dir) {
  const objects = buildLevel(resolve(dir), []);
  addHashSuffixes(objects);
  return objects.map(strip);
}

/** The build as one YAML stream, documents separated by `---`. */
export function kustomizeBuildYaml(dir) {
  return kustomizeBuild(dir)
    .map((o) => stringify(o, { lineWidth: 0 }))
    .join("---\n");
}

function buildLevel(dir, stack) {
  if (stack.includes(dir)) throw new Error(`kustomization cycle: ${[...stack, dir].map(shown).join(" -> ")}`);
  const file = kustomizationFile(dir);
  const where = shown(file);
  const k = parseYaml(file)[0] ?? {};
  if (typeof k !== "object" || Array.isArray(k)) throw new Error(`${where}: not a mapping`);
  for (const field of Object.keys(k)) {
    if (!KUSTOMIZATION_FIELDS.has(field)) throw new Error(`${where}: field \`${field}\` is not implemented by kustomize-lite`);
  }
  if (k.apiVersion !== undefined && k.apiVersion !== "kustomize.config.k8s.io/v1beta1") {
    throw new Error(`${where}: apiVersion ${k.apiVersion} is not kustomize.config.k8s.io/v1beta1`);
  }
  if (k.kind !== undefined && k.kind !== "Kustomization") throw new Error(`${where}: kind ${k.kind} is not Kustomization`);

  const objects = [];
  const add = (obj, from) => {
    if (!obj || typeof obj !== "object" || !obj.kind || !obj.apiVersion || !obj.metadata?.name) {
      throw new Error(`${from}: a document without apiVersion, kind or metadata.name`);
    }
    const clash = objects.find((o) => sameId(o, obj));
    if (clash) throw new Error(`${from}: ${id(obj)} is already in the build`);
    objects.push(obj);
  };
  for (const entry of list(k, "resources", where)) {
    if (typeof entry !== "string") throw new Error(`${where}: resources entry ${JSON.stringify(entry)} is not a path`);
    if (/^[a-z]+:\/\//i.test(entry) || entry.startsWith("git@")) throw new Error(`${where}: remote resource ${entry} is not implemented by kustomize-lite`);
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${where}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) {
      for (const obj of buildLevel(path, [...stack, dir])) add(obj, `${where} (${entry})`);
    } else {
      for (const obj of parseYaml(path)) add(obj, shown(path));
    }
  }
  for (const [i, g] of list(k, "configMapGenerator", where).entries()) add(generateConfigMap(dir, g, `${where}: configMapGenerator[${i}]`), where);

  for (const [i, p] of list(k, "patches", where).entries()) applyPatch(dir, objects, p, `${where}: patches[${i}]`);
  if (k.namespace !== undefined) setNamespace(objects, k.namespace, where);
  for (const [i, image] of list(k, "images", where).entries()) setImage(objects, image, `${where}: images[${i}]`);
  return objects;
}

function kustomizationFile(dir) {
  const found = ["kustomization.yaml", "kustomization.yml", "Kustomization"].map((n) => join(dir, n)).filter((p) => existsSync(p));
  if (found.length === 0) throw new Error(`${shown(dir)}: no kustomization.yaml`);
  if (found.length > 1) throw new Error(`${shown(dir)}: more than one kustomization file (${found.map(shown).join(", ")})`);
  return found[0];
}

// ---------------------------------------------------------------------------------------------------------------
// configMapGenerator
function generateConfigMap(dir, g, where) {
  if (!g || typeof g !== "object") throw new Error(`${where}: not a mapping`);
  for (const field of Object.keys(g)) {
    if (!GENERATOR_FIELDS.has(field)) throw new Error(`${where}: field \`${field}\` is not implemented by kustomize-lite`);
  }
  if (typeof g.name !== "string" || g.name === "") throw new Error(`${where}: no name`);
  const data = {};
  const put = (key, value, what) => {
    if (!/^[-._a-zA-Z0-9]+$/.test(key)) throw new Error(`${where}: ${what}: key ${JSON.stringify(key)} is not a valid ConfigMap key`);
    if (key in data) throw new Error(`${where}: ${what}: key ${key} twice`);
    data[key] = value;
  };
  for (const literal of list(g, "literals", where)) {
    const text = String(literal);
    const eq = text.indexOf("=");
    if (eq <= 0) throw new Error(`${where}: literal ${JSON.stringify(text)} is not key=value`);
    put(text.slice(0, eq), unquote(text.slice(eq + 1)), `literal ${text.slice(0, eq)}`);
  }
  for (const source of list(g, "files", where)) {
    const text = String(source);
    const eq = text.indexOf("=");
    const [key, file] = eq >= 0 ? [text.slice(0, eq), text.slice(eq + 1)] : [basename(text), text];
    const path = resolve(dir, file);
    if (path !== dir && !path.startsWith(dir + sep)) throw new Error(`${where}: file ${file} is outside ${shown(dir)} (kustomize refuses it)`);
    if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`${where}: file ${file} does not exist`);
    const bytes = readFileSync(path);
    const content = bytes.toString("utf8");
    if (!Buffer.from(content, "utf8").equals(bytes)) throw new Error(`${where}: file ${file} is not UTF-8 (binaryData is not implemented by kustomize-lite)`);
    put(key, content, `file ${file}`);
  }
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: g.name }, data, [GENERATED]: true };
}

// kustomize drops one pair of matching quotes around a literal's value (`k="v"` is v).
function unquote(value) {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) return value.slice(1, -1);
  return value;
}

// kustomize's suffix: the first 10 hex digits of the SHA-256 of a Go json.Marshal of {data, kind, name}, with
// 0 1 3 a e spelt g h k m t. kustomize v5 looks the name up under a path that does not resolve, so the name it
// hashes is "" (observed: the same data under two names gets the same suffix from kubectl kustomize v5.5.0).
export function configMapHash(cm) {
  if (cm.binaryData) throw new Error(`ConfigMap ${cm.metadata.name}: binaryData is not implemented by kustomize-lite`);
  const data = cm.data ?? {};
  const entries = Object.keys(data)
    .sort()
    .map((key) => `${goJson(key)}:${goJson(String(data[key]))}`);
  const json = `{"data":{${entries.join(",")}},"kind":"ConfigMap","name":""}`;
  const hex = createHash("sha256").update(json, "utf8").digest("hex");
  return hex.slice(0, 10).replace(/[013ae]/g, (c) => ({ 0: "g", 1: "h", 3: "k", a: "m", e: "t" })[c]);
}

// A string as Go's encoding/json writes it: JSON.stringify's escapes, plus < > & U+2028 U+2029 as \uXXXX.
function goJson(s) {
  if (/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) throw new Error(`a lone surrogate in ${JSON.stringify(s)}`);
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function addHashSuffixes(objects) {
  for (const cm of objects.filter((o) => o[GENERATED])) {
    const from = cm.metadata.name;
    const to = `${from}-${configMapHash(cm)}`;
    for (const obj of objects) {
      if (obj.metadata.namespace !== cm.metadata.namespace) continue;
      const spec = podSpec(obj);
      if (spec) renameConfigMapRefs(spec, from, to);
    }
    cm.metadata.name = to;
  }
}

function podSpec(obj) {
  const path = POD_SPEC[obj.kind];
  if (!path) return undefined;
  return path.reduce((node, key) => (node && typeof node === "object" ? node[key] : undefined), obj);
}

function renameConfigMapRefs(spec, from, to) {
  const rename = (ref) => {
    if (ref && ref.name === from) ref.name = to;
  };
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.env ?? []) rename(e.valueFrom?.configMapKeyRef);
    for (const e of c.envFrom ?? []) rename(e.configMapRef);
  }
  for (const v of spec.volumes ?? []) {
    rename(v.configMap);
    for (const s of v.projected?.sources ?? []) rename(s.configMap);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// patches
function applyPatch(dir, objects, p, where) {
  if (!p || typeof p !== "object") throw new Error(`${where}: not a mapping`);
  for (const field of Object.keys(p)) {
    if (!PATCH_FIELDS.has(field)) throw new Error(`${where}: field \`${field}\` is not implemented by kustomize-lite`);
  }
  if ((p.path === undefined) === (p.patch === undefined)) throw new Error(`${where}: needs exactly one of path and patch`);
  let text = p.patch;
  let from = `${where} (inline)`;
  if (p.path !== undefined) {
    const path = resolve(dir, p.path);
    if (!existsSync(path)) throw new Error(`${where}: patch file ${p.path} does not exist`);
    text = readFileSync(path, "utf8");
    from = shown(path);
  }
  const docs = parseAllDocuments(String(text)).map((d) => {
    if (d.errors.length > 0) throw new Error(`${from}: ${d.errors[0].message}`);
    return d.toJS();
  }).filter((d) => d !== null);
  if (docs.length !== 1) throw new Error(`${from}: ${docs.length} documents; kustomize-lite takes one patch per entry`);
  const patch = docs[0];

  if (Array.isArray(patch)) {
    if (!p.target) throw new Error(`${where}: a JSON 6902 patch needs a target`);
    const selected = select(objects, p.target, where);
    for (const obj of selected) applyJson6902(obj, patch, `${from} on ${id(obj)}`);
    return;
  }
  if (!patch || typeof patch !== "object" || !patch.kind || !patch.metadata?.name) {
    throw new Error(`${from}: neither a JSON 6902 operation list nor a strategic-merge patch with kind and metadata.name`);
  }
  if (patch.$patch !== undefined) throw new Error(`${from}: $patch is not implemented by kustomize-lite`);
  const selected = p.target
    ? select(objects, p.target, where)
    : objects.filter(
        (o) =>
          o.kind === patch.kind &&
          group(o.apiVersion) === group(patch.apiVersion ?? o.apiVersion) &&
          o.metadata.name === patch.metadata.name &&
          (patch.metadata.namespace === undefined || o.metadata.namespace === patch.metadata.namespace),
      );
  if (selected.length === 0) throw new Error(`${where}: the strategic-merge patch ${from} matches no object (${patch.kind} ${patch.metadata.name})`);
  for (const obj of selected) {
    const { metadata, ...rest } = patch;
    // The patch's name (and namespace) identify the object; its other metadata merges.
    const { name, namespace, ...meta } = metadata;
    strategicMerge(obj, { ...rest, metadata: meta }, `${from} on ${id(obj)}`, "");
  }
}

function select(objects, target, where) {
  if (typeof target !== "object") throw new Error(`${where}: target is not a mapping`);
  for (const field of Object.keys(target)) {
    if (!TARGET_FIELDS.has(field)) throw new Error(`${where}: target field \`${field}\` is not implemented by kustomize-lite`);
  }
  const anchored = (re) => new RegExp(`^(?:${re})$`);
  const selected = objects.filter(
    (o) =>
      (target.group === undefined || group(o.apiVersion) === target.group) &&
      (target.version === undefined || version(o.apiVersion) === target.version) &&
      (target.kind === undefined || o.kind === target.kind) &&
      (target.name === undefined || anchored(target.name).test(o.metadata.name)) &&
      (target.namespace === undefined || anchored(target.namespace).test(o.metadata.namespace ?? "")),
  );
  if (selected.length === 0) throw new Error(`${where}: target ${JSON.stringify(target)} selects no object`);
  return selected;
}

function applyJson6902(obj, ops, where) {
  for (const [i, op] of ops.entries()) {
    const at = `${where}: operation ${i} (${op?.op} ${op?.path})`;
    if (!op || typeof op !== "object" || typeof op.path !== "string") throw new Error(`${at}: no path`);
    switch (op.op) {
      case "add":
        need(op, "value", at);
        insert(obj, pointer(op.path, at), clone(op.value), at);
        break;
      case "remove":
        take(obj, pointer(op.path, at), at);
        break;
      case "replace":
        need(op, "value", at);
        take(obj, pointer(op.path, at), at);
        insert(obj, pointer(op.path, at), clone(op.value), at);
        break;
      case "move": {
        const value = take(obj, pointer(op.from, at), at);
        insert(obj, pointer(op.path, at), value, at);
        break;
      }
      case "copy":
        insert(obj, pointer(op.path, at), clone(lookup(obj, pointer(op.from, at), at)), at);
        break;
      case "test":
        need(op, "value", at);
        if (!isDeepStrictEqual(lookup(obj, pointer(op.path, at), at), op.value)) throw new Error(`${at}: test failed`);
        break;
      default:
        throw new Error(`${at}: operation \`${op.op}\` is not a JSON 6902 operation`);
    }
  }
}

function need(op, field, at) {
  if (!(field in op)) throw new Error(`${at}: no ${field}`);
}

function pointer(path, at) {
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) throw new Error(`${at}: ${JSON.stringify(path)} is not a JSON pointer`);
  if (path === "") throw new Error(`${at}: the whole object cannot be the path`);
  return path.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function parentOf(obj, tokens, at) {
  let node = obj;
  for (const [i, t] of tokens.slice(0, -1).entries()) {
    const next = Array.isArray(node) ? node[index(node, t, at, false)] : node?.[t];
    if (next === undefined || next === null || typeof next !== "object") throw new Error(`${at}: /${tokens.slice(0, i + 1).join("/")} does not exist`);
    node = next;
  }
  return node;
}

function index(array, token, at, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new Error(`${at}: ${token} is not an array index`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length)) throw new Error(`${at}: index ${i} is out of range`);
  return i;
}

function lookup(obj, tokens, at) {
  const parent = parentOf(obj, tokens, at);
  const last = tokens.at(-1);
  if (Array.isArray(parent)) return parent[index(parent, last, at, false)];
  if (!(last in parent)) throw new Error(`${at}: /${tokens.join("/")} does not exist`);
  return parent[last];
}

function insert(obj, tokens, value, at) {
  const parent = parentOf(obj, tokens, at);
  const last = tokens.at(-1);
  if (Array.isArray(parent)) parent.splice(index(parent, last, at, true), 0, value);
  else parent[last] = value;
}

function take(obj, tokens, at) {
  const value = lookup(obj, tokens, at);
  const parent = parentOf(obj, tokens, at);
  const last = tokens.at(-1);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return value;
}

function strategicMerge(target, patch, where, path) {
  for (const [key, value] of Object.entries(patch)) {
    const at = `${path}/${key}`;
    if (key.startsWith("$")) throw new Error(`${where}: directive ${key} at ${path || "/"} is not implemented by kustomize-lite`);
    if (value === null) {
      delete target[key];
    } else if (Array.isArray(value)) {
      if (MERGED_LISTS.has(key) && Array.isArray(target[key])) {
        throw new Error(`${where}: ${at} is a list Kubernetes merges by key; kustomize-lite does not implement that merge`);
      }
      target[key] = clone(value);
    } else if (typeof value === "object") {
      if (target[key] && typeof target[key] === "object" && !Array.isArray(target[key])) strategicMerge(target[key], value, where, at);
      else target[key] = withoutNulls(clone(value));
    } else {
      target[key] = value;
    }
  }
}

function withoutNulls(value) {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else withoutNulls(v);
    }
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// namespace and images
function setNamespace(objects, namespace, where) {
  if (typeof namespace !== "string" || namespace === "") throw new Error(`${where}: namespace is not a name`);
  for (const obj of objects) {
    if (NAMESPACE_SPECIAL.has(obj.kind)) {
      throw new Error(`${where}: namespace on ${id(obj)}: the namespace transformer for ${obj.kind} is not implemented by kustomize-lite`);
    }
    if (obj.kind === "Namespace") obj.metadata.name = namespace;
    else if (!CLUSTER_SCOPED.has(obj.kind)) obj.metadata.namespace = namespace;
  }
}

function setImage(objects, image, where) {
  if (!image || typeof image !== "object") throw new Error(`${where}: not a mapping`);
  for (const field of Object.keys(image)) {
    if (!IMAGE_FIELDS.has(field)) throw new Error(`${where}: field \`${field}\` is not implemented by kustomize-lite`);
  }
  if (typeof image.name !== "string" || image.name === "") throw new Error(`${where}: no name`);
  if (image.newTag !== undefined && image.digest !== undefined) throw new Error(`${where}: both newTag and digest`);
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === "containers" || key === "initContainers") && Array.isArray(value)) {
        for (const c of value) {
          if (typeof c?.image !== "string") continue;
          const ref = parseImage(c.image);
          if (ref.name !== image.name) continue;
          const name = image.newName ?? ref.name;
          if (image.digest !== undefined) c.image = `${name}@${image.digest}`;
          else if (image.newTag !== undefined) c.image = `${name}:${image.newTag}`;
          else c.image = `${name}${ref.suffix}`;
        }
      }
      visit(value);
    }
  };
  objects.forEach(visit);
}

function parseImage(image) {
  const at = image.indexOf("@");
  if (at >= 0) return { name: image.slice(0, at), suffix: image.slice(at) };
  const colon = image.lastIndexOf(":");
  if (colon > image.lastIndexOf("/")) return { name: image.slice(0, colon), suffix: image.slice(colon) };
  return { name: image, suffix: "" };
}

// ---------------------------------------------------------------------------------------------------------------
// helpers
function list(obj, field, where) {
  const value = obj[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: ${field} is not a list`);
  return value;
}

function parseYaml(path) {
  return parseAllDocuments(readFileSync(path, "utf8"))
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${shown(path)}: ${d.errors[0].message}`);
      return d.toJS();
    })
    .filter((d) => d !== null);
}

const group = (apiVersion) => (String(apiVersion).includes("/") ? String(apiVersion).split("/")[0] : "");
const version = (apiVersion) => String(apiVersion).split("/").at(-1);
const id = (o) => `${o.apiVersion}/${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`;
const sameId = (a, b) =>
  group(a.apiVersion) === group(b.apiVersion) &&
  a.kind === b.kind &&
  a.metadata.name === b.metadata.name &&
  (a.metadata.namespace ?? "") === (b.metadata.namespace ?? "");
const clone = (v) => structuredClone(v);
const strip = (o) => JSON.parse(JSON.stringify(o));
const here = dirname(fileURLToPath(import.meta.url));
// A path as messages show it: relative to ops/kubernetes, or absolute outside it.
const shown = (p) => {
  const r = relative(here, p);
  return r === "" ? "." : r.startsWith("..") ? p : r;
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    console.error("usage: node kustomize-lite.mjs <folder with a kustomization.yaml>");
    process.exit(2);
  }
  try {
    process.stdout.write(kustomizeBuildYaml(process.argv[2]));
  } catch (e) {
    console.error(`kustomize-lite: ${e.message}`);
    process.exit(1);
  }
}
