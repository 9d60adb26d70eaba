// shownUrl (src/api/redaction/shown-url.ts): a URL as it may leave the service keeps where it points
// and its query's names, never its userinfo, query values or fragment.
import { describe, expect, it } from "vitest";
import { shownUrl, shownUrlsIn, URL_REDACTED } from "../../src/api/redaction/shown-url";

describe("shownUrl", () => {
  it("keeps scheme, host, port and path; drops userinfo and fragment; keeps each query name with its value replaced", () => {
    expect(shownUrl("http://user:PASSWORD@host.example:8443/mcp/v1?api_key=SECRET&mode=fast&api_key=TWO#TOKEN")).toBe("http://host.example:8443/mcp/v1?api_key=REDACTED&mode=REDACTED&api_key=REDACTED");
    expect(shownUrl("https://only-user@hooks.example.com/ratchet#frag")).toBe("https://hooks.example.com/ratchet");
    expect(shownUrl("https://[::1]:9/x?flag")).toBe("https://[::1]:9/x?flag=REDACTED");
  });

  it("shows a URL without credentials as it is, and a name that needs escaping escaped", () => {
    expect(shownUrl("https://mcp.example.com/mcp")).toBe("https://mcp.example.com/mcp");
    expect(shownUrl("https://mcp.example.com/")).toBe("https://mcp.example.com/");
    expect(shownUrl("https://mcp.example.com/a?")).toBe("https://mcp.example.com/a");
    expect(shownUrl("https://mcp.example.com/a?a%26b=1")).toBe("https://mcp.example.com/a?a%26b=REDACTED");
  });

  it("shows nothing of a text that is not an http(s) URL", () => {
    for (const text of ["not a url PASSWORD", "", "ftp://user:PASSWORD@host/file", "mailto:PASSWORD@example.com"]) expect(shownUrl(text)).toBe(URL_REDACTED);
  });
});

describe("shownUrlsIn", () => {
  it("shows every URL inside an error text as shownUrl does, keeping the words and the punctuation around it", () => {
    expect(shownUrlsIn("fetch to https://user:PASSWORD@hooks.example.com/in?token=SECRET#frag failed.")).toBe("fetch to https://hooks.example.com/in?token=REDACTED failed.");
    expect(shownUrlsIn('"http://a:b@x.example/mcp", then (https://y.example/p?k=V)')).toBe('"http://x.example/mcp", then (https://y.example/p?k=REDACTED)');
    expect(shownUrlsIn("Network connection lost.")).toBe("Network connection lost.");
  });
});
