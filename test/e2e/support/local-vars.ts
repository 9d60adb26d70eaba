// The settings of a local run, read from .dev.vars.example (what `npm start` copies to .dev.vars):
// `wrangler dev` started by the end-to-end tests and benchmarks gets them as --var, so a test
// runs against exactly what a developer's first `npm start` does.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// `.href`: this file is also checked with the Workers types (the benches import it), whose URL is
// not the URL of @types/node 24.
const EXAMPLE = fileURLToPath(new URL("../../../.dev.vars.example", import.meta.url).href);

/** NAME=value lines; comments and blanks skipped. */
export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Z_][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (match !== null) vars[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

export function localVars(): Record<string, string> {
  return parseDevVars(readFileSync(EXAMPLE, "utf8"));
}

/** The local deployment token (.dev.vars.example). */
export const LOCAL_TOKEN = localVars().API_TOKEN!;
