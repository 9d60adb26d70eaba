// The public API from Node, for end-to-end tests and benchmarks against `wrangler dev`.
import WebSocket from "ws";

export type RunView = { id: string; status: string; stoppedBy?: string; steps: number; lastSeq: number; finalText?: string; error?: { code: string; message: string } };
export type Created = { id: string; token: string; run: RunView };

export async function request(base: string, path: string, token: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers },
  });
}

export async function createRun(base: string, apiToken: string, body: Record<string, unknown>): Promise<Created> {
  const response = await request(base, "/v1/runs", apiToken, { method: "POST", body: JSON.stringify({ provider: "scripted", ...body }) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`create: ${response.status} ${text}`);
  const created = JSON.parse(text) as { run: RunView; token: string };
  return { id: created.run.id, token: created.token, run: created.run };
}

/**
 * Releases a scripted turn's hold (docs/api.md#the-scripted-provider): the model call held on `name`
 * answers. With the deployment token; the release is stored, so it may come before the hold.
 */
export async function releaseHold(base: string, apiToken: string, id: string, name: string): Promise<void> {
  const response = await request(base, `/v1/runs/${id}/scripted/holds/${name}/release`, apiToken, { method: "POST" });
  if (response.status !== 204) throw new Error(`release ${name} of ${id}: ${response.status} ${await response.text()}`);
}

export async function getRun(base: string, id: string, token: string): Promise<RunView> {
  const response = await request(base, `/v1/runs/${id}`, token);
  if (response.status !== 200) throw new Error(`view ${id}: ${response.status} ${await response.text()}`);
  return (await response.json()) as RunView;
}

export async function getMessages(base: string, id: string, token: string): Promise<{ role: string; toolCallId?: string; content: unknown; isError?: boolean }[]> {
  const response = await request(base, `/v1/runs/${id}/messages`, token);
  if (response.status !== 200) throw new Error(`messages ${id}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { messages: { role: string; toolCallId?: string; content: unknown; isError?: boolean }[] }).messages;
}

/**
 * The stored log as a fresh client sees it: a socket with after=0, read until `lastSeq` events have
 * arrived (the view's lastSeq, asked first), then closed. Answers the frames' texts in arrival order.
 */
export async function readStoredLog(base: string, id: string, token: string, timeoutMs = 30_000): Promise<string[]> {
  const { lastSeq } = await getRun(base, id, token);
  return new Promise((resolve, reject) => {
    const texts: string[] = [];
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/runs/${id}/events?after=0`, { headers: { Authorization: `Bearer ${token}` } });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`log of ${id}: ${texts.length} of ${lastSeq} events within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on("message", (data: WebSocket.RawData) => {
      const text = data.toString();
      if (typeof (JSON.parse(text) as { seq?: unknown }).seq !== "number") return;
      texts.push(text);
      if (texts.length >= lastSeq) {
        clearTimeout(timer);
        ws.close(1000, "done");
        resolve(texts);
      }
    });
    ws.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
