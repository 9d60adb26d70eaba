// The HTTP plumbing every local server of the tests shares (the fake vendors, the MCP servers, the
// tool servers, the webhook receivers), on node:http: read a body, read a header, answer JSON,
// answer a long-poll, listen on 127.0.0.1 and shut down.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Changes } from "./changes";

/** The request's body as text, decoded whole: a character split between two chunks stays whole. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** A header's value, a repeated one joined with ", " as fetch does. */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

export function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(value));
}

/**
 * A long-poll the workerd tests wait on instead of asking again and again: 200 with `value()` once
 * `check()` holds (checked again on each change), or 408 with `message()` after 20 s, so a test
 * fails rather than hangs.
 */
export async function answerWhen(response: ServerResponse, changed: Changes, check: () => boolean, message: () => string, value: () => unknown): Promise<void> {
  try {
    await changed.until(check, 20_000, message);
  } catch (error) {
    return sendJson(response, 408, { error: (error as Error).message });
  }
  sendJson(response, 200, value());
}

/** Listens on 127.0.0.1 (`port` 0: any free port) and resolves with the port. */
export function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("The server has no port."));
      resolve(address.port);
    });
  });
}

/**
 * A port the OS has just handed out and nobody holds: listen on port 0, read the port, close. For a
 * process that must be told its port (wrangler dev, a docs example): a number picked from a fixed
 * range collides with a second suite running on the same machine; the OS's next free port does not.
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("The server has no port."));
      resolve(address.port);
    });
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Stops listening and ends every open connection, answered or not. */
export function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
