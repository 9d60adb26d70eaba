// Which push services a subscription's endpoint may be on (PUSH_HOSTS). The same syntax as
// HTTP_TOOL_ALLOW (src/tools/http/allow-list.ts): `host` or `host:port` is https only, `http://host:port`
// allows cleartext (the tests' local push service). One more form, for services that spread
// endpoints over many hosts: `*.example.com` allows every host under example.com (https only).
// Unset, the push services of the browsers that ship Web Push are allowed.
import { isUrlAllowed, parseAllowList } from "../tools/http/allow-list";

/** Chrome (FCM), Firefox (Mozilla autopush), Safari (Apple) and Edge (Windows Push Notification Services). */
export const DEFAULT_PUSH_HOSTS = "fcm.googleapis.com,updates.push.services.mozilla.com,web.push.apple.com,*.notify.windows.com";

/** PUSH_HOSTS as entries; unset or blank is the default list. */
export function parsePushHosts(value: string | undefined): string[] {
  const entries = parseAllowList(value);
  return entries.length > 0 ? entries : parseAllowList(DEFAULT_PUSH_HOSTS);
}

/** True when `endpoint` is a URL on one of the hosts, with no credentials in it. */
export function isPushEndpointAllowed(endpoint: string, hosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "") return false;
  const wildcards = hosts.filter((entry) => entry.startsWith("*."));
  if (url.protocol === "https:" && wildcards.some((entry) => url.hostname.endsWith(entry.slice(1)))) return true;
  return isUrlAllowed(endpoint, hosts.filter((entry) => !entry.startsWith("*.")));
}
