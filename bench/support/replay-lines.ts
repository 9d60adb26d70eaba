// The run objects' `ratchet.replay` lines (src/durable/run/operator-log.ts) in the output of a
// `wrangler dev` started with logLevel "log": one per slice that replays its journal, that is one
// per alarm of a running run.

export type ReplayLine = { runId: string; replayedSteps: number; ms: number };

export function replayLines(output: string): ReplayLine[] {
  return [...output.matchAll(/\{"msg":"ratchet\.replay"[^}\n]*\}/g)].map((match) => JSON.parse(match[0]) as ReplayLine);
}
