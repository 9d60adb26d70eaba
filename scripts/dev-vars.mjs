// Writes .dev.vars from .dev.vars.example when there is none, so that `npm start` works on a
// fresh clone. The local defaults live only there: `wrangler deploy` never reads .dev.vars, and a
// deployed Worker refuses them. An existing .dev.vars is never touched.
import { copyFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export function ensureDevVars(dir = root) {
  const target = `${dir}/.dev.vars`;
  if (existsSync(target)) return false;
  copyFileSync(`${dir}/.dev.vars.example`, target);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && ensureDevVars()) {
  console.log("Wrote .dev.vars from .dev.vars.example (local settings; never deployed).");
}
