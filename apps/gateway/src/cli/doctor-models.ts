import { createChatCompletionsProvider } from "../model/openai/provider.ts";
import { targetLabel, type ModelTarget } from "../model/provider.ts";
import type { DoctorCheck } from "./doctor-checks.ts";

/** Models listed in a check's detail before it says "and N more". */
const SHOWN_MODELS = 12;

/**
 * #35: each configured OpenAI-compatible endpoint (the model and its fallbacks), contacted with the
 * client the gateway uses (`GET /models`, free): what it answered, and whether the configured model
 * is among what it offers. Claude's endpoint has its own check (doctor-checks.ts `checkEndpoint`).
 */
export async function checkModelEndpoints(
  targets: readonly ModelTarget[],
  opts: { readonly timeoutMs?: number } = {},
): Promise<DoctorCheck[]> {
  const chat = targets.filter((t) => t.provider === "openai-compatible");
  return Promise.all(chat.map((t) => checkOne(t, opts.timeoutMs ?? 10_000)));
}

async function checkOne(target: ModelTarget, timeoutMs: number): Promise<DoctorCheck> {
  const name = `model ${targetLabel(target)}`;
  const where = target.baseURL ?? "(no baseUrl)";
  let models: readonly string[];
  try {
    models = await createChatCompletionsProvider(target, { timeoutMs }).listModels(AbortSignal.timeout(timeoutMs));
  } catch (e) {
    return { name, level: "fail", detail: `${where}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const listed =
    models.length > SHOWN_MODELS
      ? `${models.slice(0, SHOWN_MODELS).join(", ")} and ${models.length - SHOWN_MODELS} more`
      : models.join(", ") || "no models";
  if (models.includes(target.name))
    return {
      name,
      level: "ok",
      detail: `${where} answers; it offers ${target.name} (${models.length} model(s): ${listed})`,
    };
  return {
    name,
    level: "fail",
    detail: `${where} answers, but does not offer "${target.name}" (it offers: ${listed}). Set the model's name to one of them${target.baseURL?.includes("11434") ? `, or \`ollama pull ${target.name}\`` : ""}.`,
  };
}
