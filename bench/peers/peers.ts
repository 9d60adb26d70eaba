// The peers Ratchet's step is measured beside (bench/step-peers.ts): one zero-latency agent step =
// one "model" result and one "tool" result, each journaled, done N times
// - by one SQLite Durable Object writing the same rows (a journal row and an event row each), every
//   write awaited with a sync (`/bare`) or all left to coalesce (`/bare?sync=0`: the floor, as
//   cheap as a durable loop in one object gets);
// - by a Cloudflare Workflow with two `step.do` per agent step (`/flow`).
// Both answer when the N steps are done; the bench times them from outside, as it times a run.
// `/calls?n=N` makes N storage calls that write nothing (`SELECT 1`) in a fresh object: timed from
// outside beside n=0, what one call into SQLite costs in this runtime, whatever it does around it.
import { DurableObject, WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

type PeersEnv = { BARE: DurableObjectNamespace<Bare>; FLOW: Workflow };

const fakeModel = (i: number) => ({ role: "assistant", text: `step ${i}`, toolCalls: [{ id: `c${i}`, name: "calc", input: { i } }], usage: { input: 100 + i, output: 20 } });
const fakeTool = (i: number) => ({ content: `result ${i * 2}`, costUsd: 0 });

export class Bare extends DurableObject<PeersEnv> {
  constructor(ctx: DurableObjectState, env: PeersEnv) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS journal (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  }

  /** N calls into SQLite that read and write nothing. */
  async calls(n: number): Promise<number> {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += this.ctx.storage.sql.exec<{ one: number }>("SELECT 1 AS one").one().one;
    return sum;
  }

  /** Each step: its journal row and one event row, the write awaited (output gate) unless `sync` is off. */
  async run(n: number, sync: boolean): Promise<number> {
    const started = Date.now();
    let seq = 0;
    for (let i = 1; i <= n; i++) {
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO journal VALUES (?, ?)", `model/${i}`, JSON.stringify(fakeModel(i)));
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO events VALUES (?, ?)", ++seq, JSON.stringify({ type: "model", step: i }));
      if (sync) await this.ctx.storage.sync();
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO journal VALUES (?, ?)", `tool/${i}/c${i}`, JSON.stringify(fakeTool(i)));
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO events VALUES (?, ?)", ++seq, JSON.stringify({ type: "tool-result", step: i }));
      if (sync) await this.ctx.storage.sync();
    }
    return Date.now() - started;
  }
}

export class LoopFlow extends WorkflowEntrypoint<PeersEnv, { n: number }> {
  override async run(event: WorkflowEvent<{ n: number }>, step: WorkflowStep) {
    for (let i = 1; i <= event.payload.n; i++) {
      await step.do(`model/${i}`, async () => fakeModel(i));
      await step.do(`tool/${i}`, async () => fakeTool(i));
    }
    return { done: event.payload.n };
  }
}

async function flow(env: PeersEnv, n: number): Promise<Response> {
  const instance = await env.FLOW.create({ params: { n } });
  for (;;) {
    const { status } = await instance.status();
    if (status === "complete" || status === "errored" || status === "terminated") return Response.json({ status, steps: n });
    // What a client of a Workflow does: ask again (its status has no push).
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export default {
  async fetch(request: Request, env: PeersEnv): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n") ?? "100");
    if (url.pathname === "/v1/health") return Response.json({ ok: true });
    if (url.pathname === "/bare") {
      const stub = env.BARE.get(env.BARE.newUniqueId());
      const ms = await stub.run(n, url.searchParams.get("sync") !== "0");
      return Response.json({ steps: n, msInside: ms });
    }
    if (url.pathname === "/calls") return Response.json({ calls: await env.BARE.get(env.BARE.newUniqueId()).calls(n) });
    if (url.pathname === "/flow") return flow(env, n);
    return new Response("GET /bare?n=N[&sync=0] or /flow?n=N\n", { status: 404 });
  },
} satisfies ExportedHandler<PeersEnv>;
