// The run object's log lines for operators (`wrangler tail`, Workers Logs, the dev server's
// output): one JSON line per run end, per failure, per deletion and per slice that replays steps.
// Never a token, a key or a stack; the run's own events are its event log (event-log.ts), not these.
import { ProviderError } from "../../providers";
import type { RunRow } from "./store/run-store";

/** What ended, how, and at what cost. */
export function logRunEnd(run: RunRow): void {
  const line: Record<string, unknown> = {
    msg: "ratchet.run-end",
    runId: run.id,
    status: run.status,
    stoppedBy: run.stoppedBy ?? null,
    errorCode: run.error?.code ?? null,
    steps: run.steps,
    spentUsd: run.spentUsd,
    model: run.model,
    provider: run.provider,
  };
  if (run.error !== undefined) line.error = run.error.message;
  console.log(JSON.stringify(line));
}

/** One line per failure that ends a run: a provider's (after its retries) or any other, by name and message only. */
export function logFailure(run: Pick<RunRow, "id" | "model" | "provider">, error: unknown): void {
  const line: Record<string, unknown> =
    error instanceof ProviderError
      ? { msg: "ratchet.provider-failure", runId: run.id, provider: run.provider, model: run.model, status: error.status ?? null, retryable: error.retryable, message: error.message }
      : { msg: "ratchet.run-error", runId: run.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  console.log(JSON.stringify(line));
}

/**
 * A slice that replays steps: how long the replay took (journal read + the loop catching up)
 * before the first new step began. bench/long-run-dev.ts and bench/async-tools.ts read this line.
 * Deployed Workers advance Date.now() only across I/O, so there the figure is a lower bound.
 */
export function logReplay(runId: string, replayedSteps: number, ms: number): void {
  console.log(JSON.stringify({ msg: "ratchet.replay", runId, replayedSteps, ms }));
}

/** A run deleted (on request or at the end of its retention), with how many of its blobs went. */
export function logRunDeleted(runId: string, reason: "request" | "retention", blobs: number): void {
  console.log(JSON.stringify({ msg: "ratchet.run-deleted", runId, reason, blobs }));
}
