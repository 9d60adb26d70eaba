// The official A2A client (@a2a-js/sdk) inside workerd: its fetches go to the Worker (SELF) with a
// bearer token, and messages built with the SDK's own types.
import { SELF } from "cloudflare:test";
import { Role, type Message, type Part, type StreamResponse } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { TEST_API_TOKEN } from "../test-env";
import { BASE } from "./http";
import { driveRun } from "./service-client";

/** A fetch that sends every request to the Worker with `token` (none for the card's public read when token is undefined). */
export function workerFetch(token: string | undefined): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
    const url = input instanceof Request ? input.url : String(input);
    return SELF.fetch(url, { ...init, headers });
  };
}

export function a2aFactory(token: string = TEST_API_TOKEN): ClientFactory {
  const fetchImpl = workerFetch(token);
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: workerFetch(undefined) }) });
}

/** The client of agent `name`, found from its base URL as A2A clients find an agent. */
export function a2aClient(name: string, token?: string): Promise<Client> {
  return a2aFactory(token).createFromUrl(`${BASE}/a2a/${name}/`);
}

export const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" });
export const dataPart = (data: Record<string, unknown>): Part => ({ content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "" });

export function userMessage(parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Message {
  return { messageId: crypto.randomUUID(), contextId: ids.contextId ?? "", taskId: ids.taskId ?? "", role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** Reads a stream to its end while the run is stepped: its first event (the task) comes before any step. */
export async function streamWhileDriving(stream: AsyncGenerator<StreamResponse>): Promise<{ runId: string; taskId: string; events: StreamResponse[] }> {
  const first = await stream.next();
  if (first.done === true || first.value.payload?.$case !== "task") throw new Error("The stream did not start with the task.");
  const task = first.value.payload.value;
  const events: StreamResponse[] = [first.value];
  const driving = driveRun(task.contextId);
  for await (const event of stream) events.push(event);
  await driving;
  return { runId: task.contextId, taskId: task.id, events };
}
