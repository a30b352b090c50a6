import { expect, test } from "bun:test";
import { createRedactor } from "./redact.ts";

// Forms a secret takes in text written by common programs, each with no other form beside it:
// the redactor must find every one on its own.

test("form encoding that keeps encodeURIComponent's spelling but writes spaces as + (no % in the text)", () => {
  const secret = "open sesame!(42)";
  const redact = createRedactor([secret]);
  const written = encodeURIComponent(secret).replace(/%20/g, "+");
  expect(written).toBe("open+sesame!(42)");
  expect(redact(`q=${written}&x=1`)).toBe("q=[redacted]&x=1");
});

test("JSON writers that escape / as \\/ (PHP's json_encode, some loggers)", () => {
  const secret = "tok/abc/defghi";
  const redact = createRedactor([secret]);
  expect(redact(String.raw`{"token":"tok\/abc\/defghi"}`)).toBe('{"token":"[redacted]"}');
  expect(redact(String.raw`{"token":"tok\/abc/defghi"}`)).toBe('{"token":"[redacted]"}');
});
