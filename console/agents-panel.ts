// The stored agents a token sees (docs/agents.md), each with a message box and a Start button that
// starts a run of it (POST /v1/runs {agent, messages}) and opens the run. Read and started with
// plain fetch: the two calls need nothing of the typed client but the token.
import { byId, el, show } from "./dom";

export type AgentItem = { name: string; version: number; description: string; subject?: string };
export type StartedRun = { run: { id: string }; token: string };

/** How the console names an agent's version: "ticket-triage · v2" (its card, a run's facts, the inbox). */
export function agentLabel(agent: { name: string; version: number }): string {
  return `${agent.name} · v${agent.version}`;
}

type ApiError = { error?: { message?: string; issues?: { path: string; message: string }[] } };

async function answerOf<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T & ApiError;
  if (response.ok) return body;
  const issues = (body.error?.issues ?? []).map((issue) => `• ${issue.path || "body"}: ${issue.message}`);
  throw new Error([body.error?.message ?? `HTTP ${response.status}`, ...issues].join("\n"));
}

/** The agents `token` sees (first page, by name). */
export async function listAgents(baseUrl: string, token: string): Promise<AgentItem[]> {
  const response = await fetch(`${baseUrl}/v1/agents?limit=100`, { headers: { Authorization: `Bearer ${token}` } });
  return (await answerOf<{ agents: AgentItem[] }>(response)).agents;
}

/** Starts a run of agent `name` with one user message. */
export async function startAgentRun(baseUrl: string, token: string, name: string, text: string): Promise<StartedRun> {
  const response = await fetch(`${baseUrl}/v1/runs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ agent: name, messages: [{ role: "user", content: text }] }),
  });
  return answerOf<StartedRun>(response);
}

export class AgentsPanel {
  private readonly section = byId("agents", HTMLElement);
  private readonly list = byId("agent-list", HTMLUListElement);
  private readonly empty = byId("agents-empty", HTMLParagraphElement);
  private readonly error = byId("agents-error", HTMLParagraphElement);

  open(agents: AgentItem[], start: (name: string, text: string) => Promise<void>): void {
    this.list.replaceChildren(...agents.map((agent) => this.item(agent, start)));
    show(this.error, false);
    show(this.empty, agents.length === 0);
    show(this.section, true);
  }

  showError(message: string): void {
    this.error.textContent = message;
    show(this.error, true);
  }

  private item(agent: AgentItem, start: (name: string, text: string) => Promise<void>): HTMLLIElement {
    const input = el("input", { attrs: { "aria-label": `Message to ${agent.name}`, autocomplete: "off", placeholder: "What should it do?" } });
    const button = el("button", { text: "Start", attrs: { type: "submit" } });
    const form = el("form", { className: "agent-start" }, input, button);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (text === "") return this.showError(`Write a message for ${agent.name}.`);
      button.disabled = true;
      show(this.error, false);
      start(agent.name, text)
        .catch((error: unknown) => this.showError(error instanceof Error ? error.message : String(error)))
        .finally(() => {
          button.disabled = false;
        });
    });
    return el(
      "li",
      { className: "agent-item", attrs: { "data-agent": agent.name } },
      el("h3", { text: agentLabel(agent) }),
      el("p", { className: "hint", text: agent.description + (agent.subject === undefined ? "" : ` · ${agent.subject}`) }),
      form,
    );
  }
}
