// The built-in clock: models do not know what time it is. The clock is injected so that tests
// (and replays, which read the journal anyway) see a fixed instant.
import { z } from "zod";
import type { ToolSpec } from "../../loop/types";

const currentTimeInput = z.object({
  timeZone: z.string().min(1).optional().describe('An IANA time zone, for example "Europe/Paris"; default UTC.'),
});

export type CurrentTime = { iso: string; timeZone: string; local: string; weekday: string };

function partsIn(date: Date, timeZone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    weekday: "long",
    timeZoneName: "longOffset",
  });
  return Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
}

/** The instant in `timeZone` as ISO 8601 with its offset ("2025-03-30T03:00:00+02:00"). */
export function currentTimeIn(date: Date, timeZone: string): CurrentTime {
  const parts = partsIn(date, timeZone);
  // "GMT+02:00" → "+02:00"; plain "GMT" is UTC itself.
  const offset = (parts.timeZoneName ?? "GMT").replace(/^GMT/, "") || "+00:00";
  const local = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  return { iso: date.toISOString(), timeZone, local, weekday: parts.weekday ?? "" };
}

export function createCurrentTimeTool(now: () => Date): ToolSpec<z.infer<typeof currentTimeInput>> {
  return {
    name: "current_time",
    description: "The current date and time, in UTC or in a given IANA time zone.",
    schema: currentTimeInput,
    answersAtOnce: true,
    async run({ timeZone = "UTC" }) {
      let time: CurrentTime;
      try {
        time = currentTimeIn(now(), timeZone);
      } catch {
        return { content: `Unknown time zone: ${timeZone}. Use an IANA name such as "Europe/Paris".`, isError: true };
      }
      return { content: `${time.local} (${time.weekday}, ${time.timeZone}); UTC ${time.iso}`, value: time };
    },
  };
}
