// The answer controls of one waiting run in the inbox, built with text only (nothing a run says is
// markup): an ask (free text, or one of its choices), an approval (approve / deny), a client tool
// (a result, or an error) or a client toolset's batch (a result per action). They send through
// `send` and report a failure in place.
import type { AnswerRequest, SummaryWaiting } from "@ratchet/client";
import { askChoices, askQuestion } from "./ask-input";
import { batchFields, batchQuestion } from "./batch-fields";
import { el, json, show } from "./dom";

type Send = (body: AnswerRequest) => Promise<void>;

function questionOf(waiting: SummaryWaiting): string {
  if (waiting.kind === "ask") return askQuestion(waiting.input);
  if (waiting.kind === "client-toolset") {
    return waiting.batch === undefined ? `The run asks your client to run actions of ${waiting.name}: open the run to answer them.` : batchQuestion(waiting.name, waiting.batch.length);
  }
  if (waiting.kind === "approval") return `May the run call ${waiting.name}${waiting.truncated === true ? "" : ` with ${json(waiting.input)}`}?`;
  return `The run calls the client tool ${waiting.name}${waiting.truncated === true ? "" : ` with ${json(waiting.input)}`}. Give its result.`;
}

/** The form that answers `waiting` in place; `label` names the run for screen readers. */
export function answerForm(waiting: SummaryWaiting, label: string, send: Send): HTMLFormElement {
  const error = el("p", { className: "error", attrs: { role: "alert" } });
  show(error, false);
  const answer = el("textarea", { attrs: { rows: "2", "aria-label": `Your answer (${label})` } });
  const form = el("form", { className: "inbox-answer" }, el("p", { className: "question", text: questionOf(waiting) }));
  const submit = async (body: Omit<AnswerRequest, "callId">) => {
    if (body.content !== undefined && body.content === "") {
      error.textContent = "Write an answer first.";
      show(error, true);
      return;
    }
    const buttons = [...form.querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    try {
      await send({ callId: waiting.callId, ...body });
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
      show(error, true);
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  };
  const button = (text: string, body: () => Omit<AnswerRequest, "callId">, primary = false) => {
    const node = el("button", { text, className: primary ? "primary" : "", attrs: { type: "button" } });
    node.addEventListener("click", () => void submit(body()));
    return node;
  };
  if (waiting.kind === "client-toolset") {
    if (waiting.batch !== undefined) {
      const fields = batchFields(waiting.batch, waiting.name);
      const sendResults = el("button", { text: "Send results", className: "primary", attrs: { type: "button" } });
      sendResults.addEventListener("click", () => {
        const collected = fields.collect();
        if (!collected.ok) {
          error.textContent = collected.message;
          show(error, true);
          collected.focus.focus();
          return;
        }
        void submit({ results: collected.results });
      });
      form.append(fields.element, el("div", { className: "buttons" }, sendResults));
    }
  } else if (waiting.kind === "approval") {
    form.append(el("div", { className: "buttons" }, button("Approve", () => ({ approved: true }), true), button("Deny", () => ({ approved: false }))));
  } else {
    const choices = askChoices(waiting.input).map((choice) => button(choice, () => ({ content: choice })));
    if (choices.length > 0) form.append(el("div", { className: "choices" }, ...choices));
    const buttons =
      waiting.kind === "ask"
        ? [button("Answer", () => ({ content: answer.value.trim() }), true)]
        : [button("Send result", () => ({ content: answer.value.trim() }), true), button("Send as error", () => ({ content: answer.value.trim(), isError: true }))];
    form.append(answer, el("div", { className: "buttons" }, ...buttons));
  }
  form.append(error);
  form.addEventListener("submit", (event) => event.preventDefault());
  return form;
}
