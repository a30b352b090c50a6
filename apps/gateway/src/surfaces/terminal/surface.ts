import { defineSurface } from "../surface.ts";

/** Chat in the terminal `openassistant start` runs in: no config section, the surface when no other is configured. */
export const terminalSurface = defineSurface<undefined>({
  id: "terminal",
  configured: () => true,
  async start({ gateway, input, output, reload }) {
    const { startTerminalSurface } = await import("./terminal-surface.ts");
    const terminal = startTerminalSurface({
      gateway,
      input,
      output,
      greeting:
        "Chat with the assistant. Approvals are asked here. /help lists the commands (/model <name> switches the model, /reload reloads tools, /exit or Ctrl-D quits).",
      reload,
    });
    return {
      done: terminal.done,
      stop: () => {
        terminal.close();
        return terminal.done;
      },
    };
  },
});
