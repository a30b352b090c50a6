import type { SurfacePort } from "../surfaces/port.ts";
import { knownModels } from "./capabilities.ts";
import { offerLines } from "./offers.ts";

/** What `/model` needs of the gateway (every surface's port has it). */
export type ModelCommandPort = Pick<SurfacePort, "sessions" | "defaultModel" | "models">;

/**
 * Letters, digits and `. _ - : @ /`: every name the capability table or an endpoint's list uses
 * (OpenRouter's and vLLM's carry the vendor: `qwen/qwen-2.5-coder-32b-instruct`).
 */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;

/**
 * `/model` on every surface (terminal, Discord): no argument shows the conversation's model and what
 * each configured endpoint offers; `<name>` switches the conversation to a name one of them offers
 * (from its next message), refusing any other before a turn is spent on it; `default` goes back to
 * the configured model. Returns the lines to show; the surface only formats them.
 */
export async function modelCommand(
  port: ModelCommandPort,
  session: { readonly key: string; readonly surface: string },
  arg: string,
): Promise<string[]> {
  const current = await port.sessions.getOrCreate(session.key, session.surface);
  const configured = port.defaultModel;
  const defaultText = configured ? `the configured default (${configured})` : "the configured default";
  if (!arg) {
    const line = `model: ${current.settings.model ? `${current.settings.model} (this session)` : defaultText}`;
    return [line, ...(port.models ? offerLines(await port.models.offers()) : [])];
  }
  if (arg === "default") {
    await port.sessions.setSettings(current.id, { model: null });
    return [`model: back to ${defaultText} from the next message`];
  }
  if (!MODEL_NAME.test(arg))
    return [
      `"${arg}" is not a model name: use letters, digits, . _ - : @ / (e.g. /model claude-sonnet-5-5), or /model default.`,
    ];
  const known = port.models ? (await port.models.resolve(arg)) !== undefined : knownModels().includes(arg);
  if (!known && arg !== configured) {
    const offered = port.models ? (await port.models.offers()).flatMap((o) => o.models) : knownModels();
    return [
      `"${arg}" is not a model the gateway knows; nothing changed. Known models: ${offered.join(", ")} (or /model default).`,
    ];
  }
  await port.sessions.setSettings(current.id, { model: arg });
  return [`model: ${arg} for this session from the next message (/model default to go back)`];
}
