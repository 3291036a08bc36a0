// The checks a cluster's admission policies make, as pure functions over plain objects, so validate.mjs can run
// them on the base, on each built overlay, and on deliberately broken copies (a check that cannot fail proves
// nothing).
//
// restrictedViolations: the Pod Security Standards' `restricted` profile (which includes `baseline`) as of
// Kubernetes 1.27, https://kubernetes.io/docs/concepts/security/pod-security-standards/ - the fields the admission
// controller reads, each violation named.

const RESTRICTED_VOLUME_TYPES = new Set([
  "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret",
]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const SELINUX_TYPES = new Set([undefined, "", "container_t", "container_init_t", "container_kvm_t"]);

/** Every way a pod (its spec and the template's annotations) breaks Pod Security `restricted`; [] when none. */
export function restrictedViolations(podSpec, annotations = {}) {
  const v = [];
  const psc = podSpec.securityContext ?? {};
  const all = [
    ...(podSpec.initContainers ?? []),
    ...(podSpec.containers ?? []),
    ...(podSpec.ephemeralContainers ?? []),
  ];
  // baseline
  for (const host of ["hostNetwork", "hostPID", "hostIPC"]) if (podSpec[host] === true) v.push(`${host}: true`);
  if (psc.windowsOptions?.hostProcess === true) v.push("pod windowsOptions.hostProcess");
  for (const vol of podSpec.volumes ?? []) {
    if (vol.hostPath) v.push(`volume ${vol.name}: hostPath`);
    const type = Object.keys(vol).find((k) => k !== "name");
    if (!RESTRICTED_VOLUME_TYPES.has(type)) v.push(`volume ${vol.name}: type ${type} (restricted allows ${[...RESTRICTED_VOLUME_TYPES].join(", ")})`);
  }
  for (const s of psc.sysctls ?? []) if (!SAFE_SYSCTLS.has(s.name)) v.push(`sysctl ${s.name}`);
  for (const [k, val] of Object.entries(annotations ?? {})) {
    if (k.startsWith("container.apparmor.security.beta.kubernetes.io/") && val !== "runtime/default" && !String(val).startsWith("localhost/")) {
      v.push(`annotation ${k}: ${val}`);
    }
  }
  const seLinux = (sc, where) => {
    if (!sc?.seLinuxOptions) return;
    if (!SELINUX_TYPES.has(sc.seLinuxOptions.type)) v.push(`${where} seLinuxOptions.type ${sc.seLinuxOptions.type}`);
    if (sc.seLinuxOptions.user || sc.seLinuxOptions.role) v.push(`${where} seLinuxOptions.user/role set`);
  };
  seLinux(psc, "pod");
  // restricted, pod level
  if (psc.runAsUser === 0) v.push("pod runAsUser 0");
  const seccompOk = (t) => t === "RuntimeDefault" || t === "Localhost";
  if (psc.seccompProfile && !seccompOk(psc.seccompProfile.type)) v.push(`pod seccompProfile.type ${psc.seccompProfile.type}`);
  for (const c of all) {
    const sc = c.securityContext ?? {};
    const where = `container ${c.name}`;
    if (sc.privileged === true) v.push(`${where}: privileged`);
    if (sc.windowsOptions?.hostProcess === true) v.push(`${where}: windowsOptions.hostProcess`);
    for (const p of c.ports ?? []) if (p.hostPort) v.push(`${where}: hostPort ${p.hostPort}`);
    if (sc.procMount && sc.procMount !== "Default") v.push(`${where}: procMount ${sc.procMount}`);
    seLinux(sc, where);
    if (sc.allowPrivilegeEscalation !== false) v.push(`${where}: allowPrivilegeEscalation is not false`);
    if (!(sc.runAsNonRoot === true || (sc.runAsNonRoot === undefined && psc.runAsNonRoot === true))) {
      v.push(`${where}: runAsNonRoot is not true (container or pod)`);
    }
    if (sc.runAsUser === 0) v.push(`${where}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type ?? psc.seccompProfile?.type;
    if (!seccompOk(seccomp)) v.push(`${where}: seccompProfile.type ${seccomp} (RuntimeDefault or Localhost, container or pod)`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) v.push(`${where}: capabilities.drop lacks ALL`);
    for (const cap of sc.capabilities?.add ?? []) if (cap !== "NET_BIND_SERVICE") v.push(`${where}: capabilities.add ${cap}`);
  }
  return v;
}

/** The TCP/UDP ports a NetworkPolicy rule list opens, as "port/PROTOCOL" strings (protocol defaults to TCP). */
export function rulePorts(rule) {
  return (rule.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`);
}

/** Whether some egress rule opens `port/protocol` and names the peers it may reach (a `to`). */
export function egressAllows(policy, port, protocol = "TCP") {
  return (policy.spec.egress ?? []).some((r) => rulePorts(r).includes(`${port}/${protocol}`) && (r.to ?? []).length > 0);
}

/** host:port pairs of "h1:p1,h2:p2" (Kafka's bootstrap.servers). */
export function bootstrapPorts(servers) {
  return String(servers)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const port = Number(s.slice(s.lastIndexOf(":") + 1));
      if (!Number.isInteger(port) || port <= 0) throw new Error(`bootstrap server ${s} has no port`);
      return port;
    });
}

/** The port of an http(s) URL, defaults included. */
export function urlPort(url) {
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
}

/** A container port by name or number, resolved against a container's ports. */
export function resolvePort(port, container) {
  if (typeof port === "number") return port;
  return (container.ports ?? []).find((p) => p.name === port)?.containerPort;
}
