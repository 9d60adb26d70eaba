// Requests against the Worker (SELF) for the HTTP tests, and checks on the error shape.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { TEST_API_TOKEN } from "../test-env";

export const BASE = "https://ratchet.test";
export const API_TOKEN = TEST_API_TOKEN;

export function bearer(token = API_TOKEN): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, init);
}

export function postJson(path: string, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  return call(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

export type ErrorBody = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };

/** The response is the API's error shape with this status and code, and carries no stack trace. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorBody> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as ErrorBody;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  for (const issue of body.error.issues ?? []) {
    expect(typeof issue.path).toBe("string");
    expect(typeof issue.message).toBe("string");
  }
  expect(text).not.toMatch(/\bat .+:\d+:\d+|\.ts:\d+|node_modules|Error: /);
  return body;
}
