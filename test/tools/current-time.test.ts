import { describe, expect, it } from "vitest";
import { createCurrentTimeTool, currentTimeIn } from "../../src/tools/builtin/current-time";

const context = { signal: new AbortController().signal, callId: "c1", key: "tool/1/c1" };
const instant = new Date("2025-03-30T01:30:00.000Z"); // Europe/Paris switches to summer time at 01:00 UTC

describe("current_time", () => {
  it("answers UTC by default from the injected clock", async () => {
    const tool = createCurrentTimeTool(() => instant);
    const output = await tool.run!({}, context);
    expect(output).toMatchObject({
      content: "2025-03-30T01:30:00+00:00 (Sunday, UTC); UTC 2025-03-30T01:30:00.000Z",
      value: { iso: "2025-03-30T01:30:00.000Z", timeZone: "UTC", local: "2025-03-30T01:30:00+00:00", weekday: "Sunday" },
    });
  });

  it("answers in an IANA time zone with its offset", () => {
    expect(currentTimeIn(instant, "Europe/Paris").local).toBe("2025-03-30T03:30:00+02:00");
    expect(currentTimeIn(instant, "America/New_York").local).toBe("2025-03-29T21:30:00-04:00");
    expect(currentTimeIn(instant, "Asia/Kolkata").local).toBe("2025-03-30T07:00:00+05:30");
  });

  it("gives midnight as 00, not 24", () => {
    expect(currentTimeIn(new Date("2025-01-01T00:00:05Z"), "UTC").local).toBe("2025-01-01T00:00:05+00:00");
  });

  it("reports an unknown time zone as an error result", async () => {
    const tool = createCurrentTimeTool(() => instant);
    const output = await tool.run!({ timeZone: "Mars/Olympus_Mons" }, context);
    expect(output).toMatchObject({ isError: true });
    expect(JSON.stringify(output)).toContain("Unknown time zone: Mars/Olympus_Mons");
  });
});
