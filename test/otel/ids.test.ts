// Trace and span ids: derived from the run id and step keys (the same every time), the synchronous
// SHA-256 they come from agrees with Web Crypto, and traceparent headers are read as W3C Trace Context says.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/text/encoding";
import { sha256HexSync } from "../../src/lib/hashing/sha256-sync";
import { formatTraceparent, parseTraceparent } from "../../src/lib/traceparent";
import { spanIdOf, traceIdOf } from "../../src/durable/telemetry/span-ids";

describe("ids", () => {
  it("sha256HexSync agrees with Web Crypto", async () => {
    for (const text of ["", "abc", "x".repeat(55), "y".repeat(56), "z".repeat(64), "é✓".repeat(100)]) expect(sha256HexSync(text), text.slice(0, 10)).toBe(await sha256Hex(text));
  });

  it("the same run and key give the same ids; other keys other ids", () => {
    const trace = traceIdOf("run_a");
    expect(trace).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf("run_a")).toBe(trace);
    expect(traceIdOf("run_b")).not.toBe(trace);
    expect(spanIdOf(trace, "run_a", "s1/model/1")).toMatch(/^[0-9a-f]{16}$/);
    expect(spanIdOf(trace, "run_a", "s1/model/1")).toBe(spanIdOf(trace, "run_a", "s1/model/1"));
    expect(spanIdOf(trace, "run_a", "s1/model/2")).not.toBe(spanIdOf(trace, "run_a", "s1/model/1"));
    // Two runs in one caller's trace (one traceparent): the same step key, other span ids.
    expect(spanIdOf(trace, "run_b", "s1/model/1")).not.toBe(spanIdOf(trace, "run_a", "s1/model/1"));
  });

  it("traceparent: valid ones are read, the others ignored", () => {
    const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(parseTraceparent(good)).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" });
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later")).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" });
    for (const bad of [undefined, "", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", `${good}-x`]) {
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
    }
    expect(formatTraceparent({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" })).toBe(good);
  });
});
