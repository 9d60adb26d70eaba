// Runs in Node before test/recordings/make-recordings.test.ts (`npm run recordings`,
// vitest.recordings.config.ts): tests inside workerd cannot write files, so each recording is PUT
// here and written to test/recordings/<name>.json, pretty-printed so a remade one reads as a diff.
//
//   PUT /<name>   the body (a recording, GET /v1/runs/:id/export) → test/recordings/<name>.json
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { listen, readBody, sendJson, shut } from "./http-server";

const DIR = new URL("../../recordings/", import.meta.url);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = createServer((request, response) => {
    void (async () => {
      const name = decodeURIComponent(new URL(request.url ?? "/", "http://sink").pathname.slice(1));
      if (request.method !== "PUT" || !/^[a-z0-9-]+$/.test(name)) return sendJson(response, 400, { error: "PUT /<name> with a lowercase name" });
      const recording = JSON.parse(await readBody(request)) as unknown;
      writeFileSync(new URL(`${name}.json`, DIR), `${JSON.stringify(recording, null, 2)}\n`);
      sendJson(response, 200, { written: `test/recordings/${name}.json` });
    })();
  });
  const port = await listen(server);
  project.provide("recordingsSinkUrl", `http://127.0.0.1:${port}`);
  return () => shut(server);
}
