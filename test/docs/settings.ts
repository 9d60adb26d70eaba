// The names of what the Worker reads, from the files that declare them: secrets.types.env (secrets
// and settings with defaults in code), wrangler.toml's [vars], and its bindings. Line by line: the
// two files are written in a plain subset of their formats (see their own comments).

export type WorkerNames = {
  /** Settings: secrets.types.env, [vars] and the rate-limit bindings, each a row of the configuration tables. */
  settings: string[];
  /** Durable Object namespaces and R2 buckets. */
  storage: string[];
};

export function workerNames(secretsTypes: string, wranglerToml: string): WorkerNames {
  const settings = new Set<string>();
  const storage = new Set<string>();
  for (const line of secretsTypes.split("\n")) {
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line.trim())?.[1];
    if (name !== undefined) settings.add(name);
  }
  let table = "";
  for (const raw of wranglerToml.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || line === "") continue;
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header !== null) {
      table = header[1]!;
      continue;
    }
    const key = /^([A-Za-z0-9_]+)\s*=\s*"?([^"]*)"?/.exec(line);
    if (key === null) continue;
    const [, name, value] = key as unknown as [string, string, string];
    if (table === "vars") settings.add(name);
    if (table === "ratelimits" && name === "name") settings.add(value);
    if (table === "durable_objects.bindings" && name === "name") storage.add(value);
    if (table === "r2_buckets" && name === "binding") storage.add(value);
  }
  return { settings: [...settings].sort(), storage: [...storage].sort() };
}
