/** Surface log sink. Messages name the Discord object involved; tokens never reach it. */
export type SurfaceLog = (message: string, error?: unknown) => void;

export const defaultLog: SurfaceLog = (message, error) => {
  const detail = error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`;
  console.error(`[discord] ${message}${detail}`);
};

/** Runs a Discord call that may fail (deleted message, unknown interaction, missing access) without crashing. */
export async function safely<T>(log: SurfaceLog, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    log(what, e);
    return undefined;
  }
}
