// docs/client.md's table of the typed client's methods against the RatchetClient interface itself
// (read with the TypeScript compiler): every method, its parameters and its return type, both ways.
// The interface's own methods come first, then those of each interface it extends (EvalsClient).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT = `${ROOT}src/client/client.ts`;
/** The files holding RatchetClient and the interfaces it extends. */
const INTERFACE_FILES = [CLIENT, `${ROOT}src/client/evals-client.ts`];

type Method = { signature: string; returns: string };

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** `name(params)` and the declared return type of each method of the named interface and those it extends, as written. */
function interfaceMethods(name = "RatchetClient"): Method[] {
  for (const path of INTERFACE_FILES) {
    const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
    const declared = file.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name);
    if (declared === undefined) continue;
    const own = declared.members.filter(ts.isMethodSignature).map((member) => ({
      signature: oneLine(`${member.name.getText(file)}(${member.parameters.map((parameter) => parameter.getText(file)).join(", ")})`),
      returns: oneLine(member.type?.getText(file) ?? "(none)"),
    }));
    const extended = (declared.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText(file)));
    return [...own, ...extended.flatMap((other) => interfaceMethods(other))];
  }
  throw new Error(`No interface ${name} in ${INTERFACE_FILES.join(", ")}`);
}

/** The rows of docs/client.md's method table: its first and last cells, without the backticks. */
function documentedMethods(): Method[] {
  const rows = readFileSync(`${ROOT}docs/client.md`, "utf8").split("\n").filter((line) => /^\| `[a-zA-Z]+\(/.test(line));
  return rows.map((row) => {
    const cells = row.split(/ \| /).map((cell) => cell.replace(/^\|\s*|\s*\|$/g, "").trim());
    const strip = (cell: string) => oneLine(cell.replace(/^`|`$/g, ""));
    return { signature: strip(cells[0]!), returns: strip(cells[cells.length - 1]!) };
  });
}

describe("docs/client.md", () => {
  it("lists every method of the typed client with its parameters and return type, and no other", () => {
    const declared = interfaceMethods();
    expect(declared.length).toBeGreaterThan(30);
    expect(documentedMethods()).toEqual(declared);
  });
});
