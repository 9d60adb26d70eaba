// The event log a scripted run writes, crashed or not: `run-started`, then for each turn that calls
// the calculator (call id `c<n>`) its start, its model step, the tool's call and result and the
// turn's end, then the final answer's start, step and turn end, and `end` — each with the dedupe key
// it is logged with (null for a step's own events and the run's).

export type LoggedRow = { type: string; dedupe: string | null };

export function stepLog(toolTurns: number): LoggedRow[] {
  const last = toolTurns + 1;
  return [
    { type: "run-started", dedupe: null },
    ...Array.from({ length: toolTurns }, (_v, n) => n + 1).flatMap((i) => [
      { type: "step-start", dedupe: `s1/step-start/model/${i}` },
      { type: "model", dedupe: null },
      { type: "tool-call", dedupe: `s1/tool-call/tool/${i}/c${i}` },
      { type: "tool-result", dedupe: null },
      { type: "step", dedupe: `s1/step/model/${i}` },
    ]),
    { type: "step-start", dedupe: `s1/step-start/model/${last}` },
    { type: "model", dedupe: null },
    { type: "step", dedupe: `s1/step/model/${last}` },
    { type: "end", dedupe: null },
  ];
}
