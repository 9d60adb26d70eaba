// What the real providers are given in tests: stored images read from a map, and waits between
// attempts recorded instead of slept (the retry policy is checked by what it asked to wait).
import type { ImageData } from "../../src/providers/common/request-images";

export type Recording = {
  /** Every wait between attempts, in ms. */
  sleeps: number[];
  /** Every image read, by hash. */
  imageReads: string[];
};

export function recordingDeps(stored: Record<string, ImageData>) {
  const recording: Recording = { sleeps: [], imageReads: [] };
  const deps = {
    images: async (hash: string) => {
      recording.imageReads.push(hash);
      return stored[hash];
    },
    sleep: async (ms: number, signal: AbortSignal) => {
      recording.sleeps.push(ms);
      if (signal.aborted) throw signal.reason;
    },
    random: () => 0.5,
  };
  return { recording, deps };
}
