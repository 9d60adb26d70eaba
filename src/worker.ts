import { Hono } from "hono";
import { VERSION } from "./version";

export { RunObject } from "./durable/run-object";

const app = new Hono<{ Bindings: Env }>();

app.get("/v1/health", (c) => c.json({ ok: true, version: VERSION }));

export default app;
