// The HTTP plumbing every local server of the tests shares (the fake vendors, the MCP servers, the
// tool servers, the webhook receivers), on node:http: read a body, read a header, answer JSON,
// answer a long-poll, listen on 127.0.0.1 and shut down.
import { readFileSync } from "node:fs";
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
 * A port nobody holds, for a process that must be told its port (wrangler dev, a docs example). It
 * is drawn below the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), at
 * random, and checked by binding it: a port the OS had just handed out (listen on 0) is one the
 * kernel hands out again as the local port of the next outgoing connection, and with hundreds of
 * them a minute in a suite, `wrangler dev` started seconds later found it taken (EADDRINUSE, seen
 * with two end-to-end files at a time). Below the range, only another suite's draw can take it, and
 * the bind check sees that.
 */
export async function freePort(): Promise<number> {
  const { randomInt } = await import("node:crypto");
  const ceiling = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = randomInt(FIRST_PORT, ceiling);
    if (await bindable(candidate)) return candidate;
  }
  throw new Error(`No free port between ${FIRST_PORT} and ${ceiling} after 100 draws.`);
}

/** Whether nothing holds `port` of 127.0.0.1 now: it is bound and let go at once. */
export async function bindable(port: number): Promise<boolean> {
  const { createServer } = await import("node:net");
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/** The lowest port drawn: above the well-known and the commonly configured ones. */
const FIRST_PORT = 10_000;

/** The first port of the kernel's ephemeral range (32768 where it cannot be read; macOS's starts at 49152). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FIRST_PORT + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Stops listening and ends every open connection, answered or not. */
export function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
