import { modelSettingsShape } from "@openassistant/core/config";
import { z } from "zod";
import { checkModelSettings } from "./capabilities.ts";

/** The model the gateway uses when the config names none. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** The `model` section: core's settings, with the default model and `thinking` / `effort` checked against it. */
export const modelConfigSchema = z
  .strictObject({ ...modelSettingsShape, name: z.string().min(1).default(DEFAULT_MODEL) })
  .superRefine((model, ctx) => {
    for (const message of checkModelSettings(model.name, model)) ctx.addIssue({ code: "custom", message, path: [] });
  })
  .prefault({});

export type ModelConfig = z.output<typeof modelConfigSchema>;
