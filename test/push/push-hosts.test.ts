// PUSH_HOSTS: the browsers' push services by default; the syntax of HTTP_TOOL_ALLOW (bare hosts
// https only, `http://host:port` for cleartext), and `*.host` for a service spread over many hosts.
import { describe, expect, it } from "vitest";
import { isPushEndpointAllowed, parsePushHosts } from "../../src/push/push-hosts";

describe("PUSH_HOSTS", () => {
  const defaults = parsePushHosts(undefined);

  it.each([
    "https://fcm.googleapis.com/fcm/send/abc:APA91b",
    "https://fcm.googleapis.com/wp/abc",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
    "https://web.push.apple.com/QGuQyavXutnMH",
    "https://wns2-by3p.notify.windows.com/w/?token=BQYAAA",
  ])("takes %s by default", (endpoint) => {
    expect(isPushEndpointAllowed(endpoint, defaults)).toBe(true);
  });

  it.each([
    ["cleartext to a default host", "http://fcm.googleapis.com/fcm/send/abc"],
    ["another host", "https://push.evil.example/abc"],
    ["a look-alike host", "https://fcm.googleapis.com.evil.example/abc"],
    ["the bare wildcard's own domain", "https://notify.windows.com/w/"],
    ["a wildcard's look-alike", "https://evilnotify.windows.com/w/"],
    ["credentials in the URL", "https://user:pass@fcm.googleapis.com/fcm/send/abc"],
    ["no URL", "fcm.googleapis.com/abc"],
  ])("refuses %s", (_name, endpoint) => {
    expect(isPushEndpointAllowed(endpoint, defaults)).toBe(false);
  });

  it("replaces the defaults when set; http:// entries allow cleartext on their port", () => {
    const hosts = parsePushHosts(" http://127.0.0.1:9000 , push.example.com ");
    expect(isPushEndpointAllowed("http://127.0.0.1:9000/push/1", hosts)).toBe(true);
    expect(isPushEndpointAllowed("http://127.0.0.1:9001/push/1", hosts)).toBe(false);
    expect(isPushEndpointAllowed("https://push.example.com/x", hosts)).toBe(true);
    expect(isPushEndpointAllowed("http://push.example.com/x", hosts)).toBe(false);
    expect(isPushEndpointAllowed("https://fcm.googleapis.com/fcm/send/abc", hosts)).toBe(false);
    expect(parsePushHosts("  ")).toEqual(defaults);
  });
});
