// Scripted-model runs for end-to-end tests and benchmarks: `steps` model steps, each but the last
// calling one HTTP tool with a distinct input (so the repeat guard never steps in).

export type HttpToolRef = { type: "http"; name: string; description: string; inputSchema: Record<string, unknown>; url: string; once?: boolean };

export function httpTool(name: string, url: string, extra: Partial<HttpToolRef> = {}): HttpToolRef {
  return { type: "http", name, description: `${name} (a local test tool)`, inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url, ...extra };
}

export type Turn = { text?: string; toolCalls?: { id?: string; name: string; input: unknown }[]; delayMs?: number; costUsd?: number };

/** `steps` model turns: steps−1 tool calls of `tool`, then a final text. */
export function toolScript(steps: number, tool: string, options: { delayMs?: (step: number) => number } = {}): Turn[] {
  return Array.from({ length: steps }, (_v, i): Turn => {
    const turn: Turn = i < steps - 1 ? { text: `Step ${i + 1}.`, toolCalls: [{ name: tool, input: { n: i + 1 } }] } : { text: "All done." };
    const delayMs = options.delayMs?.(i + 1);
    if (delayMs !== undefined && delayMs > 0) turn.delayMs = Math.round(delayMs);
    turn.costUsd = 0.0001;
    return turn;
  });
}

export function toolRunBody(label: string, steps: number, tool: HttpToolRef, options: { delayMs?: (step: number) => number } = {}): Record<string, unknown> {
  return {
    provider: "scripted",
    messages: [{ role: "user", content: label }],
    tools: [tool],
    maxSteps: steps,
    script: toolScript(steps, tool.name, options),
  };
}
