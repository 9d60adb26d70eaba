// The trace export's settings: off without an endpoint; a bad endpoint, header list or capture
// switch is a problem of the deployment (503), named without its value.
import { describe, expect, it } from "vitest";
import { parseOtlpHeaders, readOtelSettings } from "../../src/config/otel-settings";
import { readSettings } from "../../src/config/settings";
import { TEST_BINDINGS } from "../test-env";

describe("OTEL_* settings", () => {
  it("are off without an endpoint, and read with their defaults", () => {
    expect(readOtelSettings({})).toEqual({ settings: undefined, problems: [] });
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com/" }).settings).toEqual({ tracesUrl: "https://otel.example.com/v1/traces", headers: {}, serviceName: "ratchet", capture: false });
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://api.honeycomb.io", OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=abc%3D,x-b=2", OTEL_SERVICE_NAME: "agents", OTEL_CAPTURE_CONTENT: "on" }).settings).toEqual({
      tracesUrl: "https://api.honeycomb.io/v1/traces",
      headers: { "x-honeycomb-team": "abc=", "x-b": "2" },
      serviceName: "agents",
      capture: true,
    });
  });

  it("a bad value makes the deployment refuse to serve, naming the setting and never the value", () => {
    for (const [setting, value] of [
      ["OTEL_EXPORTER_OTLP_ENDPOINT", "not a url"],
      ["OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://otel.example.com"],
      ["OTEL_EXPORTER_OTLP_HEADERS", "secret-key-without-a-name"],
      ["OTEL_CAPTURE_CONTENT", "yes"],
    ] as const) {
      const result = readSettings({ ...TEST_BINDINGS, OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com", [setting]: value }, false);
      expect(result.ok, setting).toBe(false);
      if (!result.ok) {
        expect(result.problems.map((problem) => problem.setting)).toEqual([setting]);
        expect(JSON.stringify(result.problems)).not.toContain(value);
      }
    }
    expect(readSettings({ ...TEST_BINDINGS, OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com", OTEL_EXPORTER_OTLP_HEADERS: "a=b" }, false).ok).toBe(true);
  });

  it("headers are key=value pairs, values URL-decoded", () => {
    expect(parseOtlpHeaders("a=1, b = two%20words ,")).toEqual({ a: "1", b: "two words" });
    expect(parseOtlpHeaders("=x")).toBeUndefined();
    expect(parseOtlpHeaders("a b=1")).toBeUndefined();
  });
});
