// Starts `wrangler dev` as a real process (its own process group, so SIGKILL takes workerd too)
// on local persisted storage, and waits until it answers.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { waitUntilListening } from "./support/dev-server";
import { localVars } from "./support/local-vars";

export type DevServer = { url: string; child: ChildProcess; output: () => string; kill: () => Promise<void>; stop: () => Promise<void> };

export async function startDev({ port, persistTo, vars = {} }: { port: number; persistTo: string; vars?: Record<string, string> }): Promise<DevServer> {
  const args = ["wrangler", "dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", persistTo, "--log-level", "warn", "--show-interactive-dev-session=false"];
  for (const [name, value] of Object.entries({ ...localVars(), ...vars })) args.push("--var", `${name}:${value}`);
  const child = spawn("npx", args, { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(url, { child, output: () => output, timeoutMs: 60_000, name: "wrangler dev" });
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
