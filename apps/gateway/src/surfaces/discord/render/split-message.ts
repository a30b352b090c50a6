import { graphemeBoundary } from "@openassistant/core/text";

/** Discord's hard limit for a message's `content`. */
const DISCORD_MESSAGE_LIMIT = 2000;

/** An opening fence line (CommonMark): 3+ backticks or tildes; a backtick fence's info has no backtick. */
function openerOf(line: string): { line: string; marker: string } | null {
  const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m || (m[1]![0] === "`" && m[2]!.includes("`"))) return null;
  return { line: `${m[1]}${m[2]!.trim().split(/\s+/)[0] ?? ""}`, marker: m[1]! };
}

/** Whether `line` closes a block opened with `marker`: the same character, at least as many, nothing after. */
function closes(line: string, marker: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return !!m && m[1]![0] === marker[0] && m[1]!.length >= marker.length;
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
  /** Room the closing fence needs at the end of a message. */
  const closeLength = () => 1 + fenceMarker.length;

  /** The last line of `current` opened the block and nothing followed it yet. */
  let openerOnly = false;

  const flush = () => {
    if (openFence && openerOnly) {
      // Don't end a message with an empty code block: the opener moves to the next message.
      const cut = current.lastIndexOf("\n");
      const body = cut >= 0 ? current.slice(0, cut) : "";
      if (body.trim()) chunks.push(body);
    } else if (current.trim() && current !== openFence) {
      chunks.push(openFence ? `${current}\n${fenceMarker}` : current);
    }
    current = openFence ? openFence : "";
  };

  const append = (piece: string) => {
    current = current ? `${current}\n${piece}` : piece;
    openerOnly = false;
  };

  for (const line of text.split("\n")) {
    const closing = openFence !== null && closes(line, fenceMarker);
    const opener: { line: string; marker: string } | null = openFence === null ? openerOf(line) : null;
    // Room for the closing fence if the block is still open after this line.
    const reserve = closing ? 0 : opener ? 1 + opener.marker.length : openFence ? closeLength() : 0;
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
          const room = limit - (current ? current.length + 1 : 0) - (openFence ? closeLength() : 0);
          if (rest.length <= room) {
            append(rest);
            rest = "";
            break;
          }
          let cut = rest.lastIndexOf(" ", room);
          // No space late enough: cut on a grapheme boundary so no emoji or accented letter is split.
          if (cut < room / 2) cut = graphemeBoundary(rest, room) || room;
          append(rest.slice(0, cut));
          rest = rest.slice(cut).replace(/^ /, "");
          flush();
        }
      }
    }
    if (closing) {
      openFence = null;
    } else if (opener) {
      openFence = opener.line;
      fenceMarker = opener.marker;
      openerOnly = true;
    }
  }
  if (current.trim() && current !== openFence) {
    chunks.push(openFence ? `${current}\n${fenceMarker}` : current);
  }
  return chunks;
}
