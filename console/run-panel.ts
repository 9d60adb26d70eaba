// The run as the page shows it, kept up to date from its events: status, steps, cost against the
// budget, each step's streamed text, tool calls and results, questions, and the final answer.
import type { AnswerRequest, ChatMessage, Content, ContentInput, MessageMode, RunStatus, RunView, StreamEvent } from "@ratchet/client";
import { agentLabel } from "./agents-panel";
import { addUsd, byId, el, json, money, show } from "./dom";
import { ForkView, type ForkLinks } from "./fork-view";
import { McpTools } from "./mcp-tools";
import { RunTree } from "./run-tree";
import { TimelineView } from "./timeline-view";
import { WaitingForm } from "./waiting-form";
import { MessageForm } from "./message-form";

/** What the panel's buttons do; `fork` makes a fork at a model step and opens it; `openRun` opens a child (or the parent) in place. */
export type RunActions = { answer(body: AnswerRequest): Promise<void>; cancel(): Promise<void>; message(content: string, mode: MessageMode): Promise<void>; fork(atStep: number): Promise<void>; openRun(id: string): void } & ForkLinks;

type StepParts = { item: HTMLLIElement; meta: HTMLSpanElement; text: HTMLParagraphElement; calls: HTMLUListElement };

const ENDED: RunStatus[] = ["finished", "failed", "cancelled"];

function textOf(content: ContentInput | Content): string {
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`)).join("");
}

const tokens = (n: number) => n.toLocaleString("en-US");

const PROVIDER_TOOLS: Record<string, string> = { web_search: "web search", web_fetch: "web fetch", code_execution: "code execution", bash_code_execution: "code execution", text_editor_code_execution: "code execution (files)" };

/** How a provider tool's call reads: "web search", and its query, URL or command. */
function providerToolLabel(name: string): string {
  return `${PROVIDER_TOOLS[name] ?? name}:`;
}

function providerToolInput(input: unknown): unknown {
  const fields = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  for (const key of ["query", "url", "command", "code"]) if (typeof fields[key] === "string") return fields[key];
  return input;
}

export class RunPanel {
  private readonly empty = byId("run-empty", HTMLDivElement);
  private readonly body = byId("run-body", HTMLDivElement);
  private readonly runId = byId("run-id", HTMLElement);
  private readonly status = byId("run-status", HTMLSpanElement);
  private readonly stepCount = byId("run-steps", HTMLElement);
  private readonly cost = byId("run-cost", HTMLElement);
  private readonly model = byId("run-model", HTMLElement);
  private readonly agentRow = byId("run-agent-row", HTMLDivElement);
  private readonly agent = byId("run-agent", HTMLElement);
  private readonly budgetRow = byId("budget-row", HTMLDivElement);
  private readonly meter = byId("cost-meter", HTMLMeterElement);
  private readonly budgetText = byId("budget-text", HTMLSpanElement);
  private readonly token = byId("run-token", HTMLElement);
  private readonly error = byId("run-error", HTMLParagraphElement);
  private readonly cancelButton = byId("cancel", HTMLButtonElement);
  private readonly timeline = byId("timeline", HTMLOListElement);
  private readonly final = byId("final", HTMLDivElement);
  private readonly finalText = byId("final-text", HTMLParagraphElement);
  private readonly finalJson = byId("final-json", HTMLPreElement);
  private readonly waiting: WaitingForm;
  private readonly message: MessageForm;
  private readonly forkView = new ForkView();

  private actions: RunActions | undefined;
  private steps = new Map<number, StepParts>();
  private calls = new Map<string, HTMLLIElement>();
  private readonly mcp = new McpTools();
  private readonly tree = new RunTree();
  private readonly bars = new TimelineView();
  /** Answers to asks and client tools by call id: from the run's messages, or given on this page. */
  private answers = new Map<string, string>();
  private spent = 0;
  private budget: number | undefined;
  private maxSteps: number | undefined;

  constructor() {
    this.waiting = new WaitingForm(async (body) => {
      // Kept before sending: the `answered` event may arrive before the answer's own response.
      const given = body.results !== undefined ? body.results.map((result) => [result.callId, textOf(result.content)] as const) : [[body.callId, body.approved === undefined ? textOf(body.content ?? "") : body.approved ? "approved" : "denied"] as const];
      for (const [callId, text] of given) this.answers.set(callId, text);
      await this.act((actions) => actions.answer(body)).catch((error: unknown) => {
        for (const [callId] of given) this.answers.delete(callId);
        throw error;
      });
    });
    this.message = new MessageForm((content, mode) => this.act((actions) => actions.message(content, mode)));
    this.cancelButton.addEventListener("click", () => {
      this.cancelButton.disabled = true;
      void this.act((actions) => actions.cancel()).finally(() => (this.cancelButton.disabled = false));
    });
  }

  /** Shows a run from scratch (its first message, answers given so far); its events then fill it in. */
  open(run: RunView, token: string, actions: RunActions, messages: ChatMessage[]): void {
    this.actions = actions;
    this.steps = new Map();
    this.calls = new Map();
    this.mcp.reset();
    this.tree.open(run, (id) => actions.openRun(id));
    this.bars.reset();
    this.answers = new Map(messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, textOf(message.content)] as const] : [])));
    // The run's own limits: maxSteps counts the whole run (a continue raises it), the budget is never reset.
    this.budget = run.budgetUsd;
    this.maxSteps = run.maxSteps;
    this.timeline.replaceChildren();
    const prompt = messages.find((message) => message.role === "user");
    if (prompt !== undefined) {
      this.timeline.append(el("li", { className: "prompt" }, el("h3", { text: "Message" }), el("p", { text: textOf(prompt.content) })));
    }
    this.waiting.close();
    show(this.final, false);
    show(this.error, false);
    show(this.empty, false);
    show(this.body, true);
    this.runId.textContent = run.id;
    this.model.textContent = `${run.model} (${run.provider})`;
    // The stored agent (and its version) the run was made from, when it was.
    this.agent.textContent = run.agent === undefined ? "" : agentLabel(run.agent);
    show(this.agentRow, run.agent !== undefined);
    this.token.textContent = token;
    this.setStatus(run.status);
    this.setSteps(run.steps);
    this.setSpent(run.spentUsd);
    this.forkView.open(run, actions);
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  apply(event: StreamEvent): void {
    this.tree.apply(event);
    this.bars.add(event);
    switch (event.type) {
      case "run-started":
        return this.setStatus(event.run.status);
      case "step-start": {
        this.setStatus("running");
        const step = this.step(event.step);
        if (event.last) step.meta.textContent = "last step";
        return;
      }
      case "text": {
        this.step(event.step).text.textContent += event.delta;
        return;
      }
      case "text-reset": {
        this.step(event.step).text.textContent = "";
        return;
      }
      case "compaction": {
        // The context was compacted before the next step: the history is whole, requests start at the summary.
        const note = `Context compacted (${event.mode === "native" ? "by the model's provider" : "summary"}): ${tokens(event.tokensBefore)} → about ${tokens(event.tokensAfter)} tokens`;
        this.timeline.append(el("li", { className: "compaction", attrs: { "data-step": String(event.step) } }, el("p", { text: note })));
        return;
      }
      case "mcp-tools": {
        this.timeline.append(this.mcp.listed(event));
        return;
      }
      case "loop-guard": {
        // A loop guard tripped on this step: what it did (a note to the model, an ask, the end) and why.
        const what = event.verdict === "warn" ? "Loop guard warned the model" : event.verdict === "ask" ? "Loop guard asks you" : "Loop guard stopped the run";
        const detectors = event.trips.map((trip) => `${trip.detector} ${trip.count}/${trip.threshold}`).join(", ");
        this.timeline.append(el("li", { className: `loop-guard ${event.verdict}`, attrs: { "data-step": String(event.step) } }, el("h3", { text: `${what} (${detectors})` }), el("p", { text: event.message })));
        return;
      }
      case "guardrail": {
        // A check's verdict (docs/guardrails.md): passed, or what its failure did, and why.
        const on = event.tool === undefined ? event.stage : `${event.stage} · ${event.tool}`;
        const verdict = event.pass ? "passed" : `failed → ${event.action}`;
        const cost = event.costUsd > 0 ? ` (${money(event.costUsd)})` : "";
        const item = el("li", { className: "guardrail", attrs: { "data-step": String(event.step), "data-pass": String(event.pass) } }, el("p", { text: `Guardrail ${event.name} (${on}) ${verdict}: ${event.reason}${cost}` }));
        this.timeline.append(item);
        return this.setSpent(addUsd(this.spent, event.costUsd));
      }
      case "model": {
        const step = this.step(event.step);
        step.text.textContent = event.text;
        const reason = event.stopReason === "max_tokens" || event.stopReason === "model_context_window_exceeded" ? "cut off" : event.stopReason === "refusal" ? "refused" : "";
        step.meta.textContent = [step.meta.textContent, money(event.costUsd), reason].filter(Boolean).join(" · ");
        this.forkButton(event.step, step);
        // The provider's own tools ran inside this call: shown, not waited for.
        for (const call of event.providerToolCalls ?? []) {
          if (this.calls.has(call.id)) continue;
          const item = this.call(event.step, call.id, providerToolLabel(call.name), providerToolInput(call.input));
          item.classList.add("provider-call");
          item.dataset.state = "ok";
          item.querySelector(".result")!.textContent = "run by the model's provider";
        }
        this.setSteps(event.step);
        return this.setSpent(event.spentUsd);
      }
      case "tool-call": {
        // The data checks it passed, carried by the call's event: a line each, as a verdict told alone has.
        for (const pass of event.guardrailsPassed ?? []) {
          this.timeline.append(el("li", { className: "guardrail", attrs: { "data-step": String(event.step), "data-pass": "true" } }, el("p", { text: `Guardrail ${pass.name} (tool · ${event.name}) passed: ${pass.reason}` })));
        }
        const call = this.call(event.step, event.callId, event.name, event.input);
        call.dataset.state = "running";
        call.querySelector(".result")!.textContent = "running…";
        return;
      }
      case "tool-started": {
        // An async HTTP tool took the job: the run waits for its result, for hours if need be.
        const call = this.calls.get(event.callId) ?? this.call(event.step, event.callId, event.name, undefined);
        call.dataset.state = "running";
        call.querySelector(".result")!.textContent = `job taken; waiting for its result (until ${new Date(event.deadline).toLocaleString()})`;
        return;
      }
      case "tool-result": {
        const call = this.calls.get(event.callId) ?? this.call(event.step, event.callId, event.name, undefined);
        call.dataset.state = event.notRun === true ? "not-run" : event.ok ? "ok" : "error";
        const cost = event.costUsd > 0 ? ` (${money(event.costUsd)})` : "";
        call.querySelector(".result")!.textContent = `${event.ok ? event.summary : (event.error ?? event.summary)}${cost}`;
        return this.setSpent(addUsd(this.spent, event.costUsd));
      }
      case "user-message": {
        // A message sent while the run worked went in here: before model call `step`.
        const label = event.mode === "interrupt" ? "Your message (interrupted the model)" : "Your message";
        this.timeline.append(el("li", { className: "prompt user-message", attrs: { "data-step": String(event.step) } }, el("h3", { text: label }), el("p", { text: textOf(event.content) })));
        return;
      }
      case "step": {
        // The run's own figure after the step's model call and tool calls: what the results added up to.
        return this.setSpent(event.spentUsd);
      }
      case "waiting": {
        this.setStatus("waiting");
        if (event.kind === "client-toolset") {
          const last = [...this.steps.keys()].at(-1) ?? 0;
          for (const action of event.batch ?? []) {
            const call = this.calls.get(action.callId) ?? this.call(last, action.callId, `${event.name} · ${action.action}`, action.input);
            call.dataset.state = "waiting";
            call.querySelector(".result")!.textContent = "waits for your client's result";
          }
          return this.waiting.open({ kind: event.kind, callId: event.callId, name: event.name, input: event.input, batch: event.batch ?? [] });
        }
        const question = (event.input as { question?: unknown } | null)?.question;
        const last = [...this.steps.keys()].at(-1) ?? 0;
        const shown = event.kind === "ask" && typeof question === "string" ? `“${question}”` : event.input;
        const call = this.calls.get(event.callId) ?? this.call(last, event.callId, event.name, shown);
        call.dataset.state = "waiting";
        const label = event.kind === "ask" ? "waiting for your answer" : event.kind === "approval" ? (event.guardrail === undefined ? "needs your approval" : `needs your approval (guardrail ${event.guardrail.name}: ${event.guardrail.reason})`) : "waits for your result";
        call.querySelector(".result")!.textContent = label;
        return this.waiting.open({ kind: event.kind, callId: event.callId, name: event.name, input: event.input });
      }
      case "answered": {
        this.waiting.close(event.callId);
        this.setStatus("running");
        for (const result of event.results ?? []) {
          const call = this.calls.get(result.callId);
          if (call === undefined) continue;
          call.dataset.state = result.ok ? "ok" : "error";
          const answer = this.answers.get(result.callId);
          call.querySelector(".result")!.textContent = answer === undefined ? (result.ok ? "done" : "failed") : `${result.ok ? "done" : "failed"}: ${answer}`;
        }
        if (event.results !== undefined) return;
        const call = this.calls.get(event.callId);
        if (call !== undefined) {
          call.dataset.state = "ok";
          const answer = this.answers.get(event.callId);
          call.querySelector(".result")!.textContent = answer === undefined ? "answered" : `answered: ${answer}`;
        }
        return;
      }
      case "end": {
        this.waiting.close();
        this.setStatus(event.status);
        this.setSteps(event.steps);
        this.setSpent(event.spentUsd);
        const text = event.guardrail === undefined ? event.finalText : `Guardrail ${event.guardrail.name} (${event.guardrail.stage}): ${event.guardrail.reason}`;
        return this.showEnd(text, event.final, event.error?.message, event.stoppedBy);
      }
    }
  }

  private async act(work: (actions: RunActions) => Promise<void>): Promise<void> {
    if (this.actions === undefined) return;
    try {
      await work(this.actions);
    } catch (error) {
      this.showError(error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  private step(n: number): StepParts {
    const known = this.steps.get(n);
    if (known !== undefined) return known;
    const meta = el("span", { className: "meta" });
    const text = el("p", { className: "text" });
    const calls = el("ul", { className: "calls" });
    const item = el("li", { className: "step", attrs: { "data-step": String(n) } }, el("h3", { text: `Step ${n} ` }, meta), text, calls);
    this.timeline.append(item);
    const parts = { item, meta, text, calls };
    this.steps.set(n, parts);
    return parts;
  }

  /** "Fork from here" on a committed model step: a new run with this run's steps up to it, opened at once. */
  private forkButton(n: number, step: StepParts): void {
    if (step.item.querySelector("button.fork") !== null) return;
    const button = el("button", { className: "fork", text: "Fork from here", attrs: { type: "button", "data-fork-step": String(n), "aria-label": `Fork from step ${n}` } });
    button.addEventListener("click", () => {
      button.disabled = true;
      void this.act((actions) => actions.fork(n))
        .catch(() => undefined)
        .finally(() => (button.disabled = false));
    });
    step.item.querySelector("h3")!.append(button);
  }

  private call(step: number, callId: string, name: string, input: unknown): HTMLLIElement {
    const known = this.calls.get(callId);
    if (known !== undefined) return known;
    const item = el(
      "li",
      { className: "call", attrs: { "data-call": callId, "data-tool": name } },
      ...this.mcp.badge(name),
      el("span", { className: "name", text: name }),
      ...(input === undefined ? [] : [el("span", { className: "input", text: ` ${typeof input === "string" ? input : json(input)}` })]),
      el("div", { className: "result" }),
    );
    this.step(step).calls.append(item);
    this.calls.set(callId, item);
    return item;
  }

  private setStatus(status: RunStatus): void {
    this.status.textContent = status;
    this.status.dataset.status = status;
    show(this.cancelButton, !ENDED.includes(status));
    this.message.follow(status);
  }

  private setSteps(steps: number): void {
    this.stepCount.textContent = this.maxSteps === undefined ? String(steps) : `${steps} of ${this.maxSteps}`;
  }

  private setSpent(spent: number): void {
    this.spent = spent;
    this.cost.textContent = money(spent);
    this.forkView.setSpent(spent);
    show(this.budgetRow, this.budget !== undefined);
    if (this.budget === undefined) return;
    this.meter.max = this.budget;
    this.meter.low = this.budget * 0.7;
    this.meter.high = this.budget * 0.9;
    this.meter.value = Math.min(spent, this.budget);
    const share = Math.round((spent / this.budget) * 100);
    this.budgetText.textContent = `${money(spent)} of ${money(this.budget)} (${share}%)`;
  }

  private showEnd(finalText: string | undefined, final: unknown, error: string | undefined, stoppedBy: string): void {
    show(this.final, true);
    const why = stoppedBy === "done" || stoppedBy === "finish-tool" ? "" : ` (stopped by ${stoppedBy})`;
    this.finalText.textContent = error !== undefined ? `Failed: ${error}` : `${finalText ?? ""}${why}`.trim() || `Ended${why}.`;
    show(this.finalJson, final !== undefined);
    this.finalJson.textContent = final === undefined ? "" : JSON.stringify(final, null, 2);
  }
}
