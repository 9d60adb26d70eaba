// PUBLIC_URL: the URL at which tool servers reach this deployment, for the callbacks of async HTTP
// tools (docs/http-tools.md). Unset, a run uses the origin of the request that created it, which is
// right whenever runs are created at the deployment's public address; set it when they are not
// (runs created through an internal hostname, a proxy, or a service binding).

/** The URL without a trailing slash, undefined when unset, or "invalid" when it is no http(s) URL. */
export function parsePublicUrl(value: unknown): string | undefined | "invalid" {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return "invalid";
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") return "invalid";
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** Where a run's callbacks go: PUBLIC_URL when set (and valid), else the run's own origin. */
export function callbackBase(env: { PUBLIC_URL?: string }, origin: string | undefined): string | undefined {
  const configured = parsePublicUrl(env.PUBLIC_URL);
  if (configured === "invalid") return undefined;
  return configured ?? origin;
}
