/** Discord's hard limit for a message's `content`. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const CLOSE_FENCE = "\n```";

function fenceOf(line: string): string | null {
  const m = /^ {0,3}(```+|~~~+)(.*)$/.exec(line);
  return m ? `${m[1]}${m[2]!.trim().split(/\s+/)[0] ?? ""}` : null;
}

/**
 * Splits `text` into messages of at most `limit` characters, preferring line breaks.
 * A code block cut by a split is closed at the end of one message and reopened (same language)
 * at the start of the next, so every message renders on its own.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (limit < 40) throw new Error(`splitMessage: limit ${limit} is too small (min 40)`);
  if (text.length <= limit) return text.trim() ? [text] : [];

  const chunks: string[] = [];
  let current = "";
  /** The fence line that opened the block we are inside, e.g. "```ts"; null outside code. */
  let openFence: string | null = null;
  /** Fence marker for closing (``` or ~~~ of the same length). */
  let fenceMarker = "```";

  const flush = () => {
    const body = openFence ? `${current}\n${fenceMarker}` : current;
    if (current.trim() && current !== openFence) chunks.push(body);
    current = openFence ? openFence : "";
  };

  const append = (piece: string) => {
    current = current ? `${current}\n${piece}` : piece;
  };

  for (const line of text.split("\n")) {
    const fence = fenceOf(line);
    // Fence state if this line is appended.
    let fenceAfter = openFence;
    if (fence) fenceAfter = openFence ? null : fence;
    const reserve = fenceAfter ? CLOSE_FENCE.length : 0;
    const joined = current ? current.length + 1 + line.length : line.length;

    if (joined + reserve <= limit) {
      append(line);
    } else {
      if (current && current !== openFence) flush();
      const fresh = current ? current.length + 1 + line.length : line.length;
      if (fresh + reserve <= limit) {
        append(line);
      } else {
        // A single line longer than a message: cut it, keeping the fence balanced around each piece.
        let rest = line;
        while (rest.length > 0) {
          const room = limit - (current ? current.length + 1 : 0) - (openFence ? CLOSE_FENCE.length : 0);
          if (rest.length <= room) {
            append(rest);
            rest = "";
            break;
          }
          let cut = rest.lastIndexOf(" ", room);
          if (cut < room / 2) cut = room;
          append(rest.slice(0, cut));
          rest = rest.slice(cut).replace(/^ /, "");
          flush();
        }
      }
    }
    if (fence) {
      if (openFence) {
        openFence = null;
      } else {
        openFence = fence;
        fenceMarker = /^(`+|~+)/.exec(fence)![1]!;
      }
    }
  }
  if (current.trim() && current !== openFence) {
    chunks.push(openFence ? `${current}\n${fenceMarker}` : current);
  }
  return chunks;
}
