import { CLAIM_VERBS, NEGATIONS, NEGATION_WINDOW } from "./lexicon.ts";

export interface ActionClaim {
  /** The claim verb as found ("scheduled"). */
  readonly verb: string;
  /** The sentence it was found in. */
  readonly sentence: string;
}

const escapePhrase = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "\\s+");
const verbRe = new RegExp(
  `\\b(${[...CLAIM_VERBS]
    .sort((a, b) => b.length - a.length)
    .map(escapePhrase)
    .join("|")})\\b`,
  "gi",
);
const negations = new Set(NEGATIONS);
const multiWordNegations = NEGATIONS.filter((n) => n.includes(" "));

/**
 * Finds sentences that state an action was carried out. Skips questions, quoted/code text and
 * verbs preceded (within a few words of the same sentence) by a negation, conditional or modal.
 */
export function findActionClaims(text: string): ActionClaim[] {
  const claims: ActionClaim[] = [];
  const prose = text.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ");
  for (const raw of prose.split(/(?<=[.!?])\s+|\n+/)) {
    const sentence = raw.trim();
    if (!sentence || sentence.endsWith("?")) continue;
    verbRe.lastIndex = 0;
    for (let m = verbRe.exec(sentence); m; m = verbRe.exec(sentence)) {
      const before = sentence.slice(0, m.index).toLowerCase();
      const words = before
        .split(/[^a-z']+/)
        .filter(Boolean)
        .slice(-NEGATION_WINDOW);
      const windowText = words.join(" ");
      const negated =
        words.some((w) => negations.has(w) || w.endsWith("n't")) ||
        multiWordNegations.some((n) => windowText.includes(n));
      // "created by Ann": a passive with a named agent describes someone else's action.
      const attributed =
        /^\s+by\s+[A-Z]/.test(sentence.slice(m.index + m[0].length)) &&
        !/^\s+by\s+(me|us)\b/i.test(sentence.slice(m.index + m[0].length));
      // Every claim of the sentence counts: "I sent the mail and deleted the draft" claims two actions.
      if (!negated && !attributed) claims.push({ verb: m[1]!.toLowerCase(), sentence });
    }
  }
  return claims;
}
