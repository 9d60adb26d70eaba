// The docs' shell examples as tests: a fenced block marked ```sh run``` is run as written by bash
// against `wrangler dev`, and the HTML comment right after it says what each command must answer:
//
//   <!-- expect: wait waiting; 201 run.id run.status=running token; then RUN=run.id TOKEN=token -->
//
// Clauses, separated by `;`, in the order of the block's curl commands:
//   wait <type>[=<n>][@<VAR>]  before the block runs, wait until $RUN (or the run or experiment
//                       whose id is in $VAR, watched with the deployment token) has stored n events
//                       (default 1) of this type
//   <status> <check>…   the next curl command's HTTP status, then checks of its answer:
//                       `path` (a JSON field that is there), `path=value` (equal; value is JSON, or
//                       a plain string), `~text` (the answer's text contains it)
//   then NAME=path…     variables for the blocks after this one, from the last answer
//
// Variables the reader fills in ($BASE, $TOKEN, $RUN, $USER_TOKEN, …) come from the test; a line
// that only assigns placeholders (`RUN=run_...; TOKEN=rt_...`) is the reader's and is skipped, and
// the local address http://127.0.0.1:8787 is read as $BASE.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Block } from "./doc-blocks";

const exec = promisify(execFile);

export type Check = { path: string; equals?: unknown } | { contains: string };
export type Expected = { status: number; checks: Check[]; then: Record<string, string> };
export type Expectation = { waits: string[]; answers: Expected[] };
export type Answer = { status: number; text: string };

/** The `<!-- expect: … -->` comment right after the block that ends at `blockEnd` in `text`. */
export function expectationAfter(markdown: string, block: Block): Expectation {
  const lines = markdown.split("\n");
  let at = block.line; // 0-based index of the line after the opening fence
  while (at < lines.length && !/^```\s*$/.test(lines[at]!)) at++;
  const next = lines.slice(at + 1).find((line) => line.trim() !== "");
  const match = /^<!-- expect: (.*) -->$/.exec(next?.trim() ?? "");
  if (match === null) throw new Error(`${block.file}:${block.line}: a block marked "sh run" needs an <!-- expect: … --> comment right after it.`);
  return parseExpectation(match[1]!);
}

function value(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function parseExpectation(spec: string): Expectation {
  const expectation: Expectation = { waits: [], answers: [] };
  for (const clause of spec.split(";").map((part) => part.trim()).filter((part) => part !== "")) {
    const words = clause.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
    const [head, ...rest] = words;
    if (head === "wait") expectation.waits.push(...rest);
    else if (head === "then") {
      const last = expectation.answers.at(-1);
      if (last === undefined) throw new Error(`"then" before any status: ${spec}`);
      for (const pair of rest) {
        const [name, path] = pair.split("=") as [string, string];
        last.then[name] = path;
      }
    } else if (/^\d{3}$/.test(head ?? "")) {
      const checks: Check[] = rest.map((raw) => {
        const word = raw.length > 1 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
        if (word.startsWith("~")) return { contains: String(value(word.slice(1))) };
        const eq = word.indexOf("=");
        return eq < 0 ? { path: word } : { path: word.slice(0, eq), equals: value(word.slice(eq + 1)) };
      });
      expectation.answers.push({ status: Number(head), checks, then: {} });
    } else throw new Error(`Unknown clause "${clause}" in: ${spec}`);
  }
  return expectation;
}

/** The field at `path` (`run.id`, `runs.0.status`) of a JSON answer. */
export function fieldAt(json: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((node, key) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), json);
}

/** The block as bash runs it: the reader's placeholder lines dropped, the local address read as $BASE. */
export function runnable(code: string): string {
  return code
    .split("\n")
    .filter((line) => !/^\s*[A-Z_]+=\S*(\.\.\.|…)/.test(line))
    .join("\n")
    .replaceAll("http://127.0.0.1:8787", "$BASE");
}

/** How many curl commands the block runs. */
export const curlCount = (code: string) => (runnable(code).match(/(^|[\s;&|(])curl\s/g) ?? []).length;

/**
 * Runs the block with bash, `vars` in its environment. Each curl also writes its status; a stream
 * (`Accept: text/event-stream`) is read for 3 seconds, all it sends by then.
 */
export async function runBlock(code: string, vars: Record<string, string>): Promise<Answer[]> {
  const prelude = [
    "curl() {",
    '  local limit=(); case "$*" in *text/event-stream*) limit=(--max-time 3);; esac',
    `  command curl "\${limit[@]}" -w '\\n@@STATUS %{http_code}\\n' "$@"; echo "@@END"`,
    "}",
  ].join("\n");
  const { stdout } = await exec("bash", ["-c", `${prelude}\n${runnable(code)}`], { env: { ...process.env, ...vars }, maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split("@@END\n")
    .filter((chunk) => chunk.includes("@@STATUS"))
    .map((chunk) => {
      const [, text = "", status = "0"] = /^([\s\S]*?)\n?@@STATUS (\d+)\n$/.exec(chunk) ?? [];
      return { status: Number(status), text };
    });
}

/** What is wrong with `answer` against `expected` (empty when it holds). */
export function problemsOf(answer: Answer, expected: Expected): string[] {
  const problems: string[] = [];
  if (answer.status !== expected.status) problems.push(`status ${answer.status}, expected ${expected.status}: ${answer.text.slice(0, 400)}`);
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  for (const check of expected.checks) {
    if ("contains" in check) {
      if (!answer.text.includes(check.contains)) problems.push(`the answer does not contain ${JSON.stringify(check.contains)}`);
      continue;
    }
    const found = fieldAt(json, check.path);
    if (found === undefined) problems.push(`no field ${check.path} in ${answer.text.slice(0, 400)}`);
    else if ("equals" in check && check.equals !== undefined && JSON.stringify(found) !== JSON.stringify(check.equals)) {
      problems.push(`${check.path} is ${JSON.stringify(found)}, expected ${JSON.stringify(check.equals)}`);
    }
  }
  return problems;
}
