// Which hosts HTTP tools may call (HTTP_TOOL_ALLOW). An entry is a host name, which allows every
// port, or host:port, which allows that port only; IPv6 addresses are written in brackets. A bare
// entry allows https only: cleartext http is allowed for a host only when its entry says so
// explicitly (`http://localhost`, `http://10.0.0.5:8080`), so a tool call never crosses the internet
// unencrypted by accident. Nothing is allowed by default.
// Creation (400) and every call apply this one rule, so a run can never reach a host that was
// removed from the list after it started.

/** `HTTP_TOOL_ALLOW`: comma-separated, case-insensitive; blanks are ignored. */
export function parseAllowList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0);
}

type Entry = { host: string; port?: string; http: boolean };

function parseEntry(text: string): Entry {
  const scheme = /^(https?):\/\//.exec(text);
  const http = scheme?.[1] === "http";
  const rest = scheme === null ? text : text.slice(scheme[0].length).replace(/\/+$/, "");
  return { ...parseHost(rest), http };
}

function parseHost(entry: string): Omit<Entry, "http"> {
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return { host: bracketed[1]!, ...(bracketed[2] === undefined ? {} : { port: String(Number(bracketed[2])) }) };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort !== null) return { host: withPort[1]!, port: String(Number(withPort[2])) };
  return { host: entry };
}

function effectivePort(url: URL): string {
  if (url.port !== "") return url.port;
  return url.protocol === "https:" ? "443" : "80";
}

/** True when `url` is https (or http for an `http://` entry) and its host (and port, where the entry names one) is allowed. */
export function isUrlAllowed(url: string, allowHosts: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  // URL lower-cases host names and keeps IPv6 addresses in brackets, as the entries are written.
  const host = parsed.hostname;
  const cleartext = parsed.protocol === "http:";
  return allowHosts
    .map(parseEntry)
    .some((entry) => entry.host === host && (entry.port === undefined || entry.port === effectivePort(parsed)) && (!cleartext || entry.http));
}

/** The host[:port] of `url` for messages, or the text itself when it is not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
