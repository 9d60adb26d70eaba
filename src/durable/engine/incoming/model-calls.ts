// The run's model call in flight, which a message sent with mode "interrupt" aborts (the loop then
// takes the message and makes the call again: src/loop/incoming.ts). Other steps (tool calls, a
// compaction's summary, an async tool's wait) are never aborted by a message: it waits for them.
// Held in memory by the run object: after a restart no call is in flight.
import { Interrupted } from "../../../loop";

export class ModelCalls {
  private inFlight: AbortController | undefined;
  /** The step key ("model/<n>", without the segment) of the call in flight, for the interrupt cap. */
  private inFlightKey: string | undefined;

  /** The signal of the step at `key`: a model call's may be interrupted; every other step has the slice's. */
  signalFor(key: string, slice: AbortSignal): { signal: AbortSignal; settled: () => void } {
    if (!key.startsWith("model/")) return { signal: slice, settled: () => undefined };
    const controller = new AbortController();
    const onSlice = () => controller.abort(slice.reason);
    if (slice.aborted) onSlice();
    else slice.addEventListener("abort", onSlice, { once: true });
    this.inFlight = controller;
    this.inFlightKey = key;
    return {
      signal: controller.signal,
      settled: () => {
        slice.removeEventListener("abort", onSlice);
        if (this.inFlight === controller) {
          this.inFlight = undefined;
          this.inFlightKey = undefined;
        }
      },
    };
  }

  /** The model call in flight that an interrupt would abort: its step number, or undefined when none. */
  interruptible(): number | undefined {
    if (this.inFlight === undefined || this.inFlight.signal.aborted || this.inFlightKey === undefined) return undefined;
    const step = Number(this.inFlightKey.slice("model/".length));
    return Number.isInteger(step) ? step : undefined;
  }

  /** Aborts the model call in flight, if there is one; true when one was. */
  interrupt(): boolean {
    const call = this.inFlight;
    if (call === undefined || call.signal.aborted) return false;
    call.abort(new Interrupted());
    return true;
  }
}
