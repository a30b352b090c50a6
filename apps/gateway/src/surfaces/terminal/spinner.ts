const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Spinner {
  /** Shows (or updates) the progress line. */
  set(label: string): void;
  /** Erases the progress line; the next write starts on a clean line. */
  clear(): void;
}

/** A one-line progress indicator; a no-op unless the output is a TTY. */
export function createSpinner(output: NodeJS.WritableStream, enabled: boolean): Spinner {
  if (!enabled) return { set() {}, clear() {} };
  let label = "";
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const draw = () => output.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label}`);
  return {
    set(next) {
      label = next;
      if (!timer) {
        timer = setInterval(draw, 80);
        timer.unref?.();
      }
      draw();
    },
    clear() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      output.write("\r\x1b[2K");
    },
  };
}
