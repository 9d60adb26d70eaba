import { describe, expect, it } from "vitest";
import { isUrlAllowed, parseAllowList } from "../../src/tools/http/allow-list";

describe("parseAllowList", () => {
  it("splits, trims, lower-cases and drops blanks", () => {
    expect(parseAllowList(" LocalHost , 127.0.0.1:8080,,api.Example.com ")).toEqual(["localhost", "127.0.0.1:8080", "api.example.com"]);
    expect(parseAllowList("")).toEqual([]);
    expect(parseAllowList(undefined)).toEqual([]);
  });
});

describe("isUrlAllowed", () => {
  const allow = parseAllowList("http://localhost,http://127.0.0.1:8080,API.example.com:443,http://[::1]:9000,http://[::2],secure.example.com,https://tls.example.com/");

  it.each([
    ["http://localhost/tool", true],
    ["http://LOCALHOST:1234/tool", true],
    ["https://localhost/tool", true],
    ["http://127.0.0.1:8080/x", true],
    ["http://127.0.0.1:8081/x", false],
    ["http://127.0.0.1/x", false],
    ["https://api.example.com/x", true],
    ["https://api.example.com:443/x", true],
    ["http://api.example.com/x", false],
    ["http://api.example.com:443/x", false],
    ["https://secure.example.com/x", true],
    ["https://secure.example.com:8443/x", true],
    ["http://secure.example.com/x", false],
    ["https://tls.example.com/x", true],
    ["http://tls.example.com/x", false],
    ["https://evil.example.com/x", false],
    ["https://api.example.com.evil.com/x", false],
    ["http://localhost.evil.com/x", false],
    ["http://[::1]:9000/x", true],
    ["http://[::1]:9001/x", false],
    ["http://[::2]:1/x", true],
    ["ftp://localhost/x", false],
    ["not a url", false],
    ["http://user:pass@evil.com@localhost/", true],
    ["http://localhost@evil.com/", false],
  ])("%s → %s", (url, allowed) => {
    expect(isUrlAllowed(url, allow)).toBe(allowed);
  });

  it("allows nothing with an empty list", () => {
    expect(isUrlAllowed("http://localhost/", [])).toBe(false);
    expect(isUrlAllowed("https://localhost/", [])).toBe(false);
  });

  it("allows cleartext http only for hosts listed with http://", () => {
    expect(isUrlAllowed("http://localhost/", parseAllowList("localhost"))).toBe(false);
    expect(isUrlAllowed("https://localhost/", parseAllowList("localhost"))).toBe(true);
    expect(isUrlAllowed("http://localhost/", parseAllowList("http://localhost"))).toBe(true);
  });
});
