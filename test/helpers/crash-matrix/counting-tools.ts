// The tools of the crash matrix (test/loop/crash-matrix.test.ts): each notes the step key it ran
// under, so a test can count how often each unit of outside work happened.
import { z } from "zod";
import type { GenerateRequest, ToolSpec } from "../../../src/loop";

/** Every unit of outside work, by the step key it ran under (`model/<n>`, `tool/…`, `start/…`, `wait/…`). */
export type Counters = { requests: GenerateRequest[]; works: string[] };

/** Empty counters, for one process's work (a crash and its restart share one). */
export function counters(): Counters {
  return { requests: [], works: [] };
}

export function countingEcho(c: Counters, costUsd = 0.001): ToolSpec<{ text: string }> {
  return {
    name: "echo",
    description: "Echo the text back.",
    schema: z.object({ text: z.string() }),
    run: async ({ text }, context) => {
      c.works.push(context.key);
      return { content: `echo: ${text}`, value: { text }, costUsd };
    },
  };
}

export function countingBoom(c: Counters): ToolSpec<Record<string, never>> {
  return {
    name: "boom",
    description: "Always fails.",
    schema: z.object({}),
    run: async (_input, context) => {
      c.works.push(context.key);
      throw new Error("kaboom");
    },
  };
}

export function countingJob(c: Counters): ToolSpec<{ n: number }> {
  return {
    name: "job",
    description: "A long outside job: start, then wait.",
    schema: z.object({ n: z.number().int() }),
    run: async () => {
      throw new Error("run must not be used when start and wait are given");
    },
    start: async ({ n }, context) => {
      c.works.push(context.key);
      return { handle: { jobId: `job-${n}` }, costUsd: 0.05 };
    },
    wait: async (handle, context) => {
      c.works.push(context.key);
      return { content: `finished ${(handle as { jobId: string }).jobId}`, value: handle, costUsd: 0.01 };
    },
  };
}

export function countingSubmit(c: Counters): ToolSpec<{ answer: string }> {
  return {
    name: "submit",
    description: "Submit the final answer.",
    schema: z.object({ answer: z.string() }),
    run: async ({ answer }, context) => {
      c.works.push(context.key);
      return { content: `submitted ${answer}`, value: { answer, ok: true }, costUsd: 0.002 };
    },
  };
}
