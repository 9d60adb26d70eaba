// CORS_ORIGINS, read (src/http/cors.ts): which entries are origins a browser can send.
import { describe, expect, it } from "vitest";
import { parseOrigins } from "../../src/http/cors";

describe("parseOrigins", () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ["", []],
    [" , ,", []],
    ["https://app.example.com", ["https://app.example.com"]],
    ["https://app.example.com,http://localhost:5173", ["https://app.example.com", "http://localhost:5173"]],
    ["  https://a.example.com ,\thttp://127.0.0.1:8080  ", ["https://a.example.com", "http://127.0.0.1:8080"]],
    // The browser's spelling: lowercase host, default port left out; duplicates once.
    ["HTTPS://App.Example.COM:443,https://app.example.com,http://x.test:80", ["https://app.example.com", "http://x.test"]],
    ["http://[::1]:5173", ["http://[::1]:5173"]],
  ])("%j → %j", (value, origins) => {
    expect(parseOrigins(value)).toEqual(origins);
  });

  it.each([
    "*",
    "null",
    "app.example.com",
    "//app.example.com",
    "https://",
    "https://app.example.com/",
    "https://app.example.com/app",
    "https://app.example.com?x=1",
    "https://app.example.com#x",
    "https://user:pw@app.example.com",
    "https://app.example.com:99999",
    "https://exa mple.com",
    "https://*.example.com",
    "ftp://files.example.com",
    "chrome-extension://abcdefghijklmnop",
    "file:///tmp/page.html",
  ])("ignores %j and tells why", (entry) => {
    const ignored: string[] = [];
    expect(parseOrigins(`https://ok.test, ${entry} ,http://ok.test:8080`, (bad) => ignored.push(bad))).toEqual(["https://ok.test", "http://ok.test:8080"]);
    expect(ignored).toEqual([entry]);
  });
});
