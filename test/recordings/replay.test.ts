// Every recording in test/recordings/ (made by `npm run recordings`, test/recordings/make-recordings.test.ts)
// replayed on today's code with src/replay: each segment's loop asks for every recorded step again,
// in order, each model step with the same request, and ends as it ended. A change to the loop that
// would make a run in flight ask for other steps after a deploy fails here (docs/deploy.md); when a
// change is meant to, the recordings are made again in the same commit. format-1/ keeps one
// recording of the format made before requests were stored as deltas, which replay still reads.
import { describe, expect, it } from "vitest";
import { replayRecording } from "../../src/replay/replay";
import { RECORDING_FORMAT, RECORDING_FORMAT_1, type Recording, type RecordingV1 } from "../../src/replay/recording";

const files = import.meta.glob<Recording>("./*.json", { eager: true, import: "default" });
const formatOne = Object.values(import.meta.glob<RecordingV1>("./format-1/continue.json", { eager: true, import: "default" }))[0]!;
const recordings = Object.fromEntries(Object.entries(files).map(([path, recording]) => [path.slice(2, -".json".length), recording]));

/** One recording of each kind of run. */
const KINDS = ["http-tools", "ask-answered", "compaction-native", "compaction-summary", "toolset-batch", "mcp", "async-tool", "openai", "continue", "fork"];

describe("recordings made by earlier code replay on today's", () => {
  it("holds one recording of each kind of run, each with the steps its kind takes", () => {
    expect(Object.keys(recordings).sort()).toEqual([...KINDS].sort());
    const keys = (name: string) => recordings[name]!.segments.flatMap((segment) => segment.steps.map((step) => step.key));
    expect(keys("compaction-summary").some((key) => key.startsWith("compact/"))).toBe(true);
    expect(keys("async-tool")).toEqual(["model/1", "start/1/j1", "wait/1/j1", "model/2"]);
    expect(keys("mcp")).toContain("tool/1/toolu_e");
    expect(recordings["compaction-native"]!.events.some((event) => event.type === "compaction" && event.mode === "native")).toBe(true);
    expect(recordings["openai"]!.options.provider).toBe("openai");
    expect(recordings["continue"]!.segments).toHaveLength(2);
    expect(recordings["fork"]!.options.forkedFrom).toMatchObject({ step: 1 });
  });

  it.each(KINDS)("%s: every recorded step is asked for again, in order, with the same request", async (name) => {
    const recording = recordings[name]!;
    expect(recording.format).toBe(RECORDING_FORMAT);
    const entries = recording.segments.reduce((sum, segment) => sum + segment.steps.length, 0);
    expect(entries).toBeGreaterThan(0);
    // Steps are counted as the run view counts them: model calls.
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: recording.run.steps, entries });
  });

  it("a recording of format 1 (each request whole, as exported before) replays on today's code", async () => {
    const recording = formatOne;
    expect(recording.format).toBe(RECORDING_FORMAT_1);
    expect(recording.segments.flatMap((segment) => segment.steps).some((step) => Array.isArray(step.request?.messages))).toBe(true);
    const entries = recording.segments.reduce((sum, segment) => sum + segment.steps.length, 0);
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: recording.run.steps, entries });
  });
});
