// Answering a waiting run in place: an ask (free text, or one of its choices), an approval
// (approve / deny), a client tool (content, optionally as an error), or a client toolset's batch
// (one result per action, see batch-fields.ts).
import type { AnswerRequest, RunView } from "@ratchet/client";
import { askChoices, askQuestion } from "./ask-input";
import { batchFields, batchQuestion, type BatchFields } from "./batch-fields";
import { byId, el, json, show } from "./dom";

export type Waiting = NonNullable<RunView["waiting"]>;

export class WaitingForm {
  private readonly form = byId("waiting", HTMLFormElement);
  private readonly question = byId("waiting-question", HTMLParagraphElement);
  private readonly input = byId("waiting-input", HTMLPreElement);
  private readonly choices = byId("waiting-choices", HTMLDivElement);
  private readonly answerField = byId("waiting-answer-field", HTMLDivElement);
  private readonly answer = byId("waiting-answer", HTMLTextAreaElement);
  private readonly buttons = byId("waiting-buttons", HTMLDivElement);
  private readonly error = byId("waiting-error", HTMLParagraphElement);
  private readonly batch = byId("waiting-batch", HTMLDivElement);
  private current: Waiting | undefined;
  private fields: BatchFields | undefined;

  constructor(private readonly send: (body: AnswerRequest) => Promise<void>) {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const submitter = (event as SubmitEvent).submitter;
      const approved = submitter instanceof HTMLButtonElement ? submitter.dataset.approved : undefined;
      if (this.fields !== undefined) void this.submitBatch(this.fields);
      else if (approved !== undefined) void this.submit({ approved: approved === "true" });
      else void this.submit({ content: this.answer.value.trim(), isError: submitter instanceof HTMLButtonElement && submitter.dataset.error === "true" });
    });
  }

  get callId(): string | undefined {
    return this.current?.callId;
  }

  open(waiting: Waiting): void {
    this.current = waiting;
    show(this.error, false);
    this.answer.value = "";
    this.choices.replaceChildren();
    this.buttons.replaceChildren();
    this.batch.replaceChildren();
    this.fields = undefined;
    show(this.batch, false);
    if (waiting.kind === "client-toolset") {
      const batch = waiting.batch ?? [];
      this.question.textContent = batchQuestion(waiting.name, batch.length);
      this.fields = batchFields(batch, waiting.name);
      this.batch.append(this.fields.element);
      show(this.batch, true);
      show(this.input, false);
      show(this.answerField, false);
      this.buttons.append(el("button", { text: "Send results", className: "primary", attrs: { type: "submit" } }));
    } else if (waiting.kind === "ask") {
      this.question.textContent = askQuestion(waiting.input);
      show(this.input, false);
      show(this.answerField, true);
      for (const choice of askChoices(waiting.input)) {
        const button = el("button", { text: choice, attrs: { type: "button" } });
        button.addEventListener("click", () => void this.submit({ content: choice }));
        this.choices.append(button);
      }
      this.buttons.append(el("button", { text: "Answer", className: "primary", attrs: { type: "submit" } }));
    } else if (waiting.kind === "approval") {
      this.question.textContent = `May the run call ${waiting.name}?`;
      this.input.textContent = JSON.stringify(waiting.input, null, 2);
      show(this.input, true);
      show(this.answerField, false);
      this.buttons.append(
        el("button", { text: "Approve", className: "primary", attrs: { type: "submit", "data-approved": "true" } }),
        el("button", { text: "Deny", attrs: { type: "submit", "data-approved": "false" } }),
      );
    } else {
      this.question.textContent = `The run calls the client tool ${waiting.name} with ${json(waiting.input)}. Give its result.`;
      show(this.input, false);
      show(this.answerField, true);
      this.buttons.append(
        el("button", { text: "Send result", className: "primary", attrs: { type: "submit" } }),
        el("button", { text: "Send as error", attrs: { type: "submit", "data-error": "true" } }),
      );
    }
    show(this.form, true);
    const first = waiting.kind === "approval" ? this.buttons.querySelector("button") : waiting.kind === "client-toolset" ? this.batch.querySelector("textarea") : this.answer;
    first?.focus();
  }

  close(callId?: string): void {
    if (callId !== undefined && callId !== this.current?.callId) return;
    this.current = undefined;
    show(this.form, false);
  }

  private async submitBatch(fields: BatchFields): Promise<void> {
    const waiting = this.current;
    if (waiting === undefined) return;
    const collected = fields.collect();
    if (!collected.ok) {
      this.fail(collected.message);
      collected.focus.focus();
      return;
    }
    await this.sending(waiting.callId, () => this.send({ callId: waiting.callId, results: collected.results }));
  }

  private async sending(callId: string, work: () => Promise<void>): Promise<void> {
    const controls = [...this.form.querySelectorAll("button")];
    for (const control of controls) control.disabled = true;
    try {
      await work();
      this.close(callId);
    } catch (error) {
      this.fail(error instanceof Error ? error.message : String(error));
    } finally {
      for (const control of controls) control.disabled = false;
    }
  }

  private async submit(answer: { content?: string; approved?: boolean; isError?: boolean }): Promise<void> {
    const waiting = this.current;
    if (waiting === undefined) return;
    if (answer.content !== undefined && answer.content === "") {
      this.fail("Write an answer first.");
      this.answer.focus();
      return;
    }
    const body: AnswerRequest = { callId: waiting.callId, ...answer };
    if (body.isError !== true) delete body.isError;
    await this.sending(waiting.callId, () => this.send(body));
  }

  private fail(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }
}
