// Typing while the run works: a message the run takes in before its next model call ("Send"), or
// one that interrupts the model call in flight ("Interrupt"). On a finished run "Send" continues it.
// Shown while the run is running or finished; a waiting run has its own form (waiting-form.ts).
import type { MessageMode, RunStatus } from "@ratchet/client";
import { byId, show } from "./dom";

export class MessageForm {
  private readonly form = byId("message-form", HTMLFormElement);
  private readonly text = byId("message-text", HTMLTextAreaElement);
  private readonly interrupt = byId("message-interrupt", HTMLButtonElement);
  private readonly error = byId("message-error", HTMLParagraphElement);
  private readonly hint = byId("message-hint", HTMLParagraphElement);

  constructor(send: (content: string, mode: MessageMode) => Promise<void>) {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const submitter = (event as SubmitEvent).submitter;
      void this.submit(send, submitter === this.interrupt ? "interrupt" : "queue");
    });
  }

  private async submit(send: (content: string, mode: MessageMode) => Promise<void>, mode: MessageMode): Promise<void> {
    const content = this.text.value.trim();
    if (content.length === 0) return;
    show(this.error, false);
    this.form.querySelectorAll("button").forEach((button) => (button.disabled = true));
    try {
      await send(content, mode);
      this.text.value = "";
    } catch (error) {
      this.error.textContent = error instanceof Error ? error.message : String(error);
      show(this.error, true);
    } finally {
      this.form.querySelectorAll("button").forEach((button) => (button.disabled = false));
    }
  }

  /** Follows the run's status: open while it runs (both buttons) or is finished (a continue: Send only). */
  follow(status: RunStatus): void {
    show(this.form, status === "running" || status === "finished");
    show(this.interrupt, status === "running");
    this.hint.textContent =
      status === "running" ? "The run takes it before its next model call; Interrupt stops the model's answer in progress and asks again with it." : "Continues the run with your message.";
  }
}
