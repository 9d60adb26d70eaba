// The text the model call in flight has streamed so far. Text deltas are live only (never in the
// event log), so a watcher that connects in the middle of a step would see only what comes after;
// the chat stream's reconnect (docs/api.md "AI SDK chat") asks for this first. Kept in memory only:
// an object that dies mid-step makes the call again (the journal never stored it), and the call
// made again streams its text from the start, with a `text-reset` first.

/** Types of stored events after which the step's streamed text is history (the `model` event carries it whole). */
const CLOSING = /^\{"seq":\d+,"at":"[^"]*","type":"(model|step-start|end|waiting)"/;

export class StepText {
  private step: number | undefined;
  private text = "";

  /** A live event as the fan-out sends it. */
  noteLive(event: object): void {
    const live = event as { type?: unknown; step?: unknown; delta?: unknown };
    if (typeof live.step !== "number") return;
    if (live.type === "text-reset") {
      this.step = undefined;
      this.text = "";
    } else if (live.type === "text" && typeof live.delta === "string") {
      if (this.step !== live.step) this.text = "";
      this.step = live.step;
      this.text += live.delta;
    }
  }

  /** Stored events, as logged: a step's end (or the next one's start) makes its streamed text stale. */
  noteLogged(texts: readonly string[]): void {
    if (this.step === undefined) return;
    if (texts.some((text) => CLOSING.test(text))) {
      this.step = undefined;
      this.text = "";
    }
  }

  /** The in-flight step's text so far, as one live `text` event, or undefined when none streams. */
  soFar(): { type: "text"; step: number; delta: string } | undefined {
    return this.step === undefined || this.text === "" ? undefined : { type: "text", step: this.step, delta: this.text };
  }
}
