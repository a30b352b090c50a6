import { describe, expect, test } from "bun:test";
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecretRegistry } from "@openassistant/core/receipts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { escapeHtml, html, raw } from "./html.ts";
import { CONSOLE_KEY_FILE, createSigner, loadConsoleKey } from "./signing.ts";

describe("console signing", () => {
  test("the key is created 0600 in the data dir and reused", () => {
    const dir = makeTempDir("oa-console-key-");
    const key = loadConsoleKey(dir, createSecretRegistry());
    expect(statSync(join(dir, CONSOLE_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadConsoleKey(dir, createSecretRegistry())).equals(Buffer.from(key))).toBe(true);
  });

  test("a key file others could read is made 0600 again before it is used", () => {
    const dir = makeTempDir("oa-console-key-");
    const key = loadConsoleKey(dir, createSecretRegistry());
    chmodSync(join(dir, CONSOLE_KEY_FILE), 0o644);
    expect(Buffer.from(loadConsoleKey(dir, createSecretRegistry())).equals(Buffer.from(key))).toBe(true);
    expect(statSync(join(dir, CONSOLE_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  test("a key file that is not a key is refused with what to do", () => {
    const dir = makeTempDir("oa-console-key-");
    writeFileSync(join(dir, CONSOLE_KEY_FILE), "nope\n", { mode: 0o600 });
    expect(() => loadConsoleKey(dir, createSecretRegistry())).toThrow(/console-key is not a console key.*Delete it/);
  });

  test("grants verify until they expire; any change to body or signature, or another key, is refused", () => {
    let now = 1_000;
    const signer = createSigner(new Uint8Array(32).fill(7), () => now);
    const token = signer.sign({ kind: "run", runId: "run_1", exp: 2_000 });
    expect(signer.check(token)).toEqual({ ok: true, grant: { kind: "run", runId: "run_1", exp: 2_000 } });
    const [body, sig] = token.split(".") as [string, string];
    const other = Buffer.from(JSON.stringify({ kind: "run", runId: "run_2", exp: 2_000 })).toString("base64url");
    expect(signer.check(`${other}.${sig}`)).toEqual({ ok: false, reason: "signature" });
    expect(signer.check(`${body}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`)).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(signer.check(`${body}.`)).toEqual({ ok: false, reason: "malformed" });
    // Every other spelling of the last character is refused, those that decode to the same bytes too.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (const c of alphabet.replace(sig.at(-1)!, ""))
      expect(signer.check(`${body}.${sig.slice(0, -1)}${c}`)).toEqual({ ok: false, reason: "signature" });
    expect(signer.check(undefined)).toEqual({ ok: false, reason: "malformed" });
    expect(createSigner(new Uint8Array(32).fill(8), () => now).check(token)).toEqual({
      ok: false,
      reason: "signature",
    });
    now = 2_000;
    expect(signer.check(token)).toEqual({ ok: false, reason: "expired" });
  });
});

describe("html escaping", () => {
  test("interpolations are escaped, arrays joined, raw markup kept", () => {
    const evil = `<script>alert("x")</script>'`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      `<p title="${escapeHtml(evil)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;</p>`,
    );
    expect(html`<ul>${["a", "<b>"].map((x) => html`<li>${x}</li>`)}</ul>`.value).toBe(
      "<ul><li>a</li><li>&lt;b&gt;</li></ul>",
    );
    expect(html`${raw("<br>")}${null}${undefined}${false}${0}`.value).toBe("<br>0");
  });
});
