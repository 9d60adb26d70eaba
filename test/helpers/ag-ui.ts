// @ag-ui/client's HttpAgent inside workerd at its default options: its fetches go to the Worker
// (SELF) with a bearer token, and each stream's run (the x-ratchet-run-id header) is stepped while
// the agent reads it. Every event the agent gets is checked against @ag-ui/core's own schemas.
import { SELF } from "cloudflare:test";
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { TEST_API_TOKEN } from "../test-env";
import { agentName, makeAgent } from "./agents";
import { BASE } from "./http";
import { driveRun } from "./service-client";

export type AgUiHarness = {
  agent: HttpAgent;
  /** Every event the agent got, in order, each parsed by EventSchemas. */
  events: BaseEvent[];
  /** The Ratchet run of each stream the agent opened. */
  runIds: string[];
  /** Resolves when every run a stream opened has been stepped to its stop. */
  driven(): Promise<void>;
};

/** `drive`: step each stream's run to its stop (the default), not at all (false), or with this function (a tree of runs). */
export type HarnessOptions = { token?: string; threadId?: string; drive?: boolean | ((runId: string) => Promise<unknown>) };

export function agUiHarness(path: string, options: HarnessOptions = {}): AgUiHarness {
  const token = options.token ?? TEST_API_TOKEN;
  const drives: Promise<unknown>[] = [];
  const runIds: string[] = [];
  const events: BaseEvent[] = [];
  const agent = new HttpAgent({
    url: `${BASE}${path}`,
    headers: { Authorization: `Bearer ${token}` },
    ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
    fetch: async (url, init) => {
      const response = await SELF.fetch(url, init);
      const runId = response.headers.get("x-ratchet-run-id");
      if (response.ok && runId !== null) {
        runIds.push(runId);
        if (typeof options.drive === "function") drives.push(options.drive(runId));
        else if (options.drive !== false) drives.push(driveRun(runId));
      }
      return response;
    },
  });
  agent.subscribe({
    onEvent: ({ event }) => {
      events.push(EventSchemas.parse(event) as BaseEvent);
    },
  });
  return { agent, events, runIds, driven: async () => void (await Promise.all(drives)) };
}

export const typesOf = (events: readonly BaseEvent[]) => events.map((event) => event.type as string);

/** A raw POST of the AG-UI door: the response (its SSE body unread). */
export function postAgUi(path: string, input: Record<string, unknown>, headers: Record<string, string> = {}, token = TEST_API_TOKEN): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "text/event-stream", ...headers }, body: JSON.stringify(input) });
}

export type SseFrame = { id?: string; event: Record<string, unknown> };

/** Every frame of an AG-UI SSE answer, to its end (keep-alive comments skipped). */
export async function readFrames(response: Response): Promise<SseFrame[]> {
  const text = await response.text();
  const frames: SseFrame[] = [];
  for (const block of text.split("\n\n")) {
    let id: string | undefined;
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (data === "") continue;
    frames.push(id === undefined ? { event: JSON.parse(data) as Record<string, unknown> } : { id, event: JSON.parse(data) as Record<string, unknown> });
  }
  return frames;
}

/** A user message of AG-UI's, with a fresh id. */
export const agUiUser = (content: string) => ({ id: crypto.randomUUID(), role: "user" as const, content });

/** A stored agent (a fresh name from `label`) whose template is `run`: its name. */
export async function agUiAgent(label: string, run: Record<string, unknown>): Promise<string> {
  const name = agentName(label);
  await makeAgent({ name, run });
  return name;
}

/** An AG-UI SSE answer's text up to the chunk that holds `text`; then the reader is let go (the stream lost there). */
export async function readUntil(response: Response, text: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(text)) seen += decoder.decode((await reader.read()).value!, { stream: true });
  await reader.cancel();
  return seen;
}
