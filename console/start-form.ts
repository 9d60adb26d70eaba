// The "Start a run" form: its defaults, and the request it makes (or what is wrong with it).
import type { CreateRunRequest, ScriptedTurn } from "@ratchet/client";
import { DEFAULT_MESSAGE, DEFAULT_SCRIPT, DEFAULT_SYSTEM } from "./defaults";
import { byId, show } from "./dom";

export type StartRequest = { deployToken: string; body: CreateRunRequest };

function field(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === "string" ? value.trim() : "";
}

/** A field a line, each value on one line: shorter to read and edit than JSON.stringify's indentation. */
function formatScript(turns: ScriptedTurn[]): string {
  const lines = turns.map((turn) => {
    const fields = Object.entries(turn).map(([name, value]) => `    ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
    return `  {\n${fields.join(",\n")}\n  }`;
  });
  return `[\n${lines.join(",\n")}\n]`;
}

export function setUpStartForm(form: HTMLFormElement): void {
  byId("system", HTMLTextAreaElement).value = DEFAULT_SYSTEM;
  byId("message", HTMLTextAreaElement).value = DEFAULT_MESSAGE;
  byId("script", HTMLTextAreaElement).value = formatScript(DEFAULT_SCRIPT);
  const scriptField = byId("script-field", HTMLDivElement);
  const sync = () => show(scriptField, field(form, "provider") === "scripted");
  form.addEventListener("change", sync);
  sync();
}

export function readStartForm(form: HTMLFormElement): StartRequest | { error: string } {
  const deployToken = field(form, "deployToken");
  if (deployToken === "") return { error: "The deployment token is needed to start a run." };
  const message = field(form, "message");
  if (message === "") return { error: "Write a message for the run." };
  const budget = Number(field(form, "budget"));
  if (!Number.isFinite(budget) || budget <= 0) return { error: "The budget must be a number of dollars above 0." };
  const maxSteps = Number(field(form, "maxSteps"));
  if (!Number.isInteger(maxSteps) || maxSteps < 1) return { error: "Max steps must be a whole number, at least 1." };
  const chosen = field(form, "provider");
  // The real providers use the deployment's default model (DEFAULT_MODEL, DEFAULT_OPENAI_MODEL).
  const provider = chosen === "anthropic" || chosen === "openai" ? chosen : "scripted";
  const tools = new FormData(form).getAll("tools").filter((tool): tool is string => typeof tool === "string");
  const system = field(form, "system");

  let script: ScriptedTurn[] | undefined;
  const scriptText = field(form, "script");
  if (provider === "scripted" && scriptText !== "") {
    try {
      script = JSON.parse(scriptText) as ScriptedTurn[];
    } catch (error) {
      return { error: `The script is not JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
    // The service checks every turn; this only catches the commonest slip.
    if (!Array.isArray(script)) return { error: "The script must be a JSON array of turns." };
  }

  const body: CreateRunRequest = {
    provider,
    messages: [{ role: "user", content: message }],
    tools,
    maxSteps,
    budget: { usd: budget },
    ...(system === "" ? {} : { system }),
    ...(script === undefined ? {} : { script }),
  };
  return { deployToken, body };
}
