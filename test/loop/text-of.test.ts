// A message's text (src/loop/content.ts textOf), made without lists: the same string as the text
// parts filtered, mapped and joined by newlines, for any mix of text and image parts.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop/content";
import type { ContentPart } from "../../src/loop/types";
import { seededRandom as seeded } from "../helpers/seeded-random";

const joined = (parts: ContentPart[]) =>
  parts
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("\n");

const TEXTS = ["", " ", "\n", "Let me check.", "a\nb", "café"];

describe("textOf", () => {
  it("is the string itself for string content", () => {
    expect(textOf("Let me check.")).toBe("Let me check.");
    expect(textOf("")).toBe("");
  });

  it("is empty for no parts and for images alone", () => {
    expect(textOf([])).toBe("");
    expect(textOf([{ type: "image", mimeType: "image/png", hash: "h" }])).toBe("");
  });

  it("is one text part's very string", () => {
    const text = "x".repeat(300);
    expect(textOf([{ type: "image", mimeType: "image/png", hash: "h" }, { type: "text", text }])).toBe(text);
  });

  it("is the text parts joined by newlines, as filter/map/join make it, on seeded random contents", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = seeded(seed);
      const parts: ContentPart[] = [];
      const n = Math.floor(next() * 6);
      for (let i = 0; i < n; i++) parts.push(next() < 0.7 ? { type: "text", text: TEXTS[Math.floor(next() * TEXTS.length)]! } : { type: "image", mimeType: "image/png", hash: `h${i}` });
      expect(textOf(parts), `seed ${seed}`).toBe(joined(parts));
    }
  });
});
