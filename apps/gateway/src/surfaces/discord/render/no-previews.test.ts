import { expect, test } from "bun:test";
import { suppressLinkPreviews } from "./no-previews.ts";

test("links in answers get Discord's no-preview form; code and already-wrapped links are left alone", () => {
  expect(suppressLinkPreviews("see https://evil.example/x?d=secret.")).toBe("see <https://evil.example/x?d=secret>.");
  expect(suppressLinkPreviews("a [doc](https://example.com/a) link")).toBe("a [doc](<https://example.com/a>) link");
  expect(suppressLinkPreviews("already <https://example.com> wrapped")).toBe("already <https://example.com> wrapped");
  expect(suppressLinkPreviews("(https://example.com/a_b)")).toBe("(<https://example.com/a_b>)");
  expect(suppressLinkPreviews("inline `curl https://example.com` stays")).toBe(
    "inline `curl https://example.com` stays",
  );
  expect(suppressLinkPreviews("```\nfetch('https://example.com')\n```\nthen https://b.example")).toBe(
    "```\nfetch('https://example.com')\n```\nthen <https://b.example>",
  );
  expect(suppressLinkPreviews("no links here")).toBe("no links here");
});
