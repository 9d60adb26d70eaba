// Starts `wrangler dev` as a real process (its own process group, so SIGKILL takes workerd too)
// on local persisted storage, and waits until it answers.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { TEST_TOOL_SIGNING_KEY } from "../tool-signing-keys";

export type DevServer = { url: string; child: ChildProcess; output: () => string; kill: () => Promise<void>; stop: () => Promise<void> };

export async function startDev({ port, persistTo, vars = {} }: { port: number; persistTo: string; vars?: Record<string, string> }): Promise<DevServer> {
  const args = ["wrangler", "dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistTo, "--log-level", "warn", "--show-interactive-dev-session=false"];
  // Runs with HTTP tools are refused without a signing key; a test may still give its own.
  for (const [name, value] of Object.entries({ TOOL_SIGNING_KEY: TEST_TOOL_SIGNING_KEY, ...vars })) args.push("--var", `${name}:${value}`);
  const child = spawn("npx", args, { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    try {
      const response = await fetch(`${url}/v1/health`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    try {
      process.kill(-child.pid!, name);
    } catch {
      return;
    }
    await exited;
  };
  return { url, child, output: () => output, kill: () => signal("SIGKILL"), stop: () => signal("SIGTERM") };
}
