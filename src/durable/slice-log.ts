// One structured log line per slice that replays steps: how long the replay took (journal read
// + the loop catching up) before the first new step began. Operators read it in `wrangler tail`
// or the dev server's output; bench/long-run-dev.ts reads it to time replay on resume.
// Deployed Workers advance Date.now() only across I/O, so there the figure is a lower bound.
export function logReplay(runId: string, replayedSteps: number, ms: number): void {
  console.log(JSON.stringify({ msg: "ratchet.replay", runId, replayedSteps, ms }));
}
