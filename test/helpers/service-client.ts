// A client of the running Worker for service tests: start runs over HTTP, drive their alarms by
// hand, and watch their events over a socket or SSE.
import { abortAllDurableObjects, runDurableObjectAlarm, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { RunView } from "../../src/api/types";
import { drive, stubFor } from "./runs";
import { watch } from "./watch";
import { TEST_API_TOKEN } from "../test-env";

export const BASE = "https://ratchet.test";
export const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}` };

export async function startRun(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ run: RunView; token: string }> {
  const response = await SELF.fetch(`${BASE}/v1/runs`, {
    method: "POST",
    headers: { ...DEPLOY, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ provider: "scripted", ...body }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as { run: RunView; token: string };
}

export async function api(path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers } });
}

export async function getRun(id: string, token: string): Promise<RunView> {
  return (await (await api(`/v1/runs/${id}`, token)).json()) as RunView;
}

/** Fires the run's alarms until it stops running. */
export async function driveRun(id: string, limit = 100): Promise<void> {
  await drive(stubFor(id), limit);
}

/**
 * Fires the run's alarm and, once its tool call has reached the tool's server (`reached` resolves),
 * kills every object mid-call. runDurableObjectAlarm removed the alarm it ran (the platform would
 * deliver it again): a request to the running run re-arms it, so `driveRun` takes it from there.
 */
export async function killMidToolCall(id: string, reached: () => Promise<unknown>): Promise<void> {
  const watcher = await watch(stubFor(id));
  const alarm = runDurableObjectAlarm(stubFor(id)).catch(() => undefined);
  await watcher.next((frame) => frame.type === "tool-call");
  await reached();
  await abortAllDurableObjects();
  await alarm;
  await api(`/v1/runs/${id}`, TEST_API_TOKEN);
}

export type Socket = {
  frames: Record<string, unknown>[];
  next(match: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  send(frame: unknown): void;
  close(): void;
  /** Resolves with the close code when the server closes the socket. */
  closed: Promise<number>;
};

export async function openSocket(id: string, token: string, after?: number): Promise<Socket> {
  const query = after === undefined ? "" : `?after=${after}`;
  return openSocketAt(`/v1/runs/${id}/events${query}`, { Authorization: `Bearer ${token}` });
}

/** A ticket for the run's events, asked for with `token`. */
export async function ticketFor(id: string, token: string): Promise<string> {
  const response = await api(`/v1/runs/${id}/tickets`, token, { method: "POST" });
  expect(response.status).toBe(201);
  return ((await response.json()) as { ticket: string }).ticket;
}

export async function openSocketAt(path: string, headers: Record<string, string> = {}): Promise<Socket> {
  const response = await SELF.fetch(`${BASE}${path}`, { headers: { Upgrade: "websocket", ...headers } });
  expect(response.status, response.status === 101 ? "" : await response.text()).toBe(101);
  const socket = response.webSocket!;
  socket.accept();
  const closed = new Promise<number>((resolve) => socket.addEventListener("close", (event) => resolve(event.code)));
  const frames: Record<string, unknown>[] = [];
  let waiters: { match: (frame: Record<string, unknown>) => boolean; resolve: (frame: Record<string, unknown>) => void }[] = [];
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(String(event.data)) as Record<string, unknown>;
    frames.push(frame);
    const still = [];
    for (const waiter of waiters) {
      if (waiter.match(frame)) waiter.resolve(frame);
      else still.push(waiter);
    }
    waiters = still;
  });
  return {
    frames,
    next: (match) => {
      const found = frames.find(match);
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    send: (frame) => socket.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    close: () => socket.close(),
    closed,
  };
}

/** Reads SSE events from a response until `stop` matches one (then cancels the stream). */
export async function readSse(response: Response, stop: (data: Record<string, unknown>) => boolean): Promise<{ id?: string; data: Record<string, unknown> }[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: { id?: string; data: Record<string, unknown> }[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: { id?: string; data: Record<string, unknown> } = { data: {} };
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) event.id = line.slice(4);
        if (line.startsWith("data: ")) event.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
      }
      events.push(event);
      if (stop(event.data)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

/** Releases the scripted hold `name` of run `id` (the local-only route, docs/api.md#the-scripted-provider). */
export async function releaseHold(id: string, name: string): Promise<void> {
  const response = await api(`/v1/runs/${id}/scripted/holds/${name}/release`, TEST_API_TOKEN, { method: "POST" });
  expect(response.status, await response.text()).toBe(204);
}
