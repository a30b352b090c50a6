import { expect, test } from "bun:test";
import { displayPath } from "./display-path.ts";

test("paths are shown relative to the user's cwd when inside it, else absolute", () => {
  expect(displayPath("/home/ann/proj/.openassistant/tools/x.ts", "/home/ann/proj")).toBe(".openassistant/tools/x.ts");
  expect(displayPath("/home/ann/proj", "/home/ann/proj")).toBe(".");
  expect(displayPath("/srv/openassistant/packages/sdk/src/index.ts", "/home/ann/proj")).toBe(
    "/srv/openassistant/packages/sdk/src/index.ts",
  );
  expect(displayPath("/home/ann/other/x.ts", "/home/ann/proj")).toBe("/home/ann/other/x.ts");
  expect(displayPath("tools/x.ts", "/home/ann/proj")).toBe("tools/x.ts");
});
