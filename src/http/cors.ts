// CORS_ORIGINS, read: the browser origins allowed to call the API. Pure, so that any value an
// operator sets can be tested; a bad entry is left out rather than allowed to break the Worker.

/** scheme://host[:port] and nothing after it: no path (not even "/"), query or fragment. */
const ORIGIN_SHAPE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+$/i;
/** A host name (as URL writes it: lowercase, IDN in punycode) or an IPv6 address; URL would take "*.a.com". */
const HOST = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+$|^\[[0-9a-f:.]+\]$/;

/** The entry as a browser would send it in `Origin`, or undefined if it is not an http(s) origin. */
function originOf(entry: string): string | undefined {
  if (!ORIGIN_SHAPE.test(entry)) return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined; // e.g. a host with characters no URL allows
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (!HOST.test(url.hostname)) return undefined;
  // url.origin is the browser's spelling (lowercase host, no default port), which is what the
  // Origin header is compared with, exactly.
  return url.origin;
}

/**
 * The valid origins of a comma-separated list, each once, in order. Entries are trimmed, blanks
 * skipped; an entry that is not an http(s) origin is handed to `ignored` and left out.
 */
export function parseOrigins(value: string | undefined, ignored: (entry: string) => void = () => undefined): string[] {
  const origins: string[] = [];
  for (const raw of (value ?? "").split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const origin = originOf(entry);
    if (origin === undefined) ignored(entry);
    else if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}
