// A UIMessage's parts as the run's content and back (src/api/ai-sdk/ui-content.ts): text as text,
// an image file part given as a base64 data URL as an inline image, anything else a file part could
// carry refused at its path; stored content back as UI parts, images by hash left out.
import { describe, expect, it } from "vitest";
import { contentOfParts, partsOfContent } from "../../src/api/ai-sdk/ui-content";
import { PNG } from "../helpers/bad-input/requests";

describe("a UIMessage's parts as content", () => {
  it("one text part is a string; text and an image file part are parts, the image inline", () => {
    expect(contentOfParts([{ type: "text", text: "Hi" }])).toEqual({ content: "Hi" });
    expect(contentOfParts([{ type: "step-start" }, { type: "text", text: "What is this?" }, { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` }])).toEqual({
      content: [
        { type: "text", text: "What is this?" },
        { type: "image", mimeType: "image/png", data: PNG },
      ],
    });
    // The media type may come from the data URL alone.
    expect(contentOfParts([{ type: "file", url: `data:image/png;base64,${PNG}` }])).toEqual({ content: [{ type: "image", mimeType: "image/png", data: PNG }] });
  });

  it("refuses a file that is not an image, an image by URL, and a message with nothing to take, at their paths", () => {
    expect(contentOfParts([{ type: "text", text: "Read this" }, { type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERi0=" }])).toEqual({
      issue: { path: "messages.parts.1", message: expect.stringContaining("must be an image") as unknown as string },
    });
    expect(contentOfParts([{ type: "file", mediaType: "image/png", url: "https://example.com/cat.png" }])).toMatchObject({ issue: { path: "messages.parts.0" } });
    expect(contentOfParts([{ type: "step-start" }, { type: "reasoning", text: "hmm" }])).toEqual({ issue: { path: "messages.parts", message: "The message has no text or image part." } });
  });

  it("stored content back as parts: text kept, images by hash left out (no URL a browser could load)", () => {
    expect(partsOfContent("Hello")).toEqual([{ type: "text", text: "Hello" }]);
    expect(partsOfContent("")).toEqual([]);
    expect(partsOfContent([{ type: "text", text: "Look" }, { type: "image", mimeType: "image/png", hash: "a".repeat(64) } as never])).toEqual([{ type: "text", text: "Look" }]);
  });
});
