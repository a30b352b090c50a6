/**
 * A message that is edited as state changes, without flooding Discord: at most one edit in flight,
 * intermediate states are skipped (only the latest text is sent), identical text is not re-sent.
 * Failures (deleted message, missing permission) are logged and never thrown.
 */
export interface LiveMessage {
  set(text: string): void;
  /** Sends the latest text and waits for all edits to finish. */
  flush(): Promise<void>;
}

export function createLiveMessage(
  initial: Promise<{ edit(text: string): Promise<unknown> } | null>,
  initialText: string,
  log: (msg: string, err?: unknown) => void,
): LiveMessage {
  let latest: string | null = initialText;
  let shown: string | null = initialText;
  let running: Promise<void> | null = null;
  let dead = false;

  const pump = async () => {
    const msg = await initial.catch((e) => (log("status message could not be posted", e), null));
    if (!msg) {
      dead = true;
      return;
    }
    while (latest !== null && latest !== shown) {
      const text = latest;
      try {
        await msg.edit(text);
      } catch (e) {
        log("status message edit failed", e);
        dead = true;
        return;
      }
      shown = text;
    }
  };

  const kick = () => {
    if (!running && !dead) {
      running = pump().finally(() => {
        running = null;
        if (latest !== shown && latest !== null) kick();
      });
    }
  };

  return {
    set(text) {
      latest = text;
      kick();
    },
    async flush() {
      while (running) await running;
    },
  };
}
