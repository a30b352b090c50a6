/**
 * Words → search terms for `tools.$search`: split camelCase, kebab, snake and paths; drop stop
 * words; fold a few spellings of one thing into one term; strip English plural and verb endings.
 * The same steps run on tool names, descriptions and queries, so they meet on the same terms.
 */

/** Words that say nothing about which tool is meant. */
const STOP = new Set(
  (
    "a an the and or of to in on at by for from with into onto as is are be been was it its this that these those " +
    "i we our you your please can could would should will do does how what which who whom where when " +
    "some any one every each via using use there here so than then just also about"
  ).split(" "),
);

/**
 * One thing, several spellings: both the tools and the query see the canonical words (before
 * stemming), so the rarer spelling does not outweigh the common one.
 */
const SAME: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    pr: ["pull", "request"],
    prs: ["pull", "request"],
    repo: ["repository"],
    repos: ["repository"],
    org: ["organization"],
    orgs: ["organization"],
    organisation: ["organization"],
    organisations: ["organization"],
    config: ["configuration"],
    configs: ["configuration"],
    info: ["information"],
    env: ["environment"],
    envs: ["environment"],
    dir: ["directory"],
    dirs: ["directory"],
    msg: ["message"],
    msgs: ["message"],
    id: ["identifier"],
    ids: ["identifier"],
  }),
);

/**
 * Words that often mean the same thing in a request to an API (mostly verbs). Expanded on the
 * query side only, at a lower weight, so the exact word still ranks first.
 */
const RELATED_GROUPS: ReadonlyArray<readonly string[]> = [
  ["delete", "remove", "destroy", "erase", "drop", "purge"],
  ["create", "add", "new", "make", "insert", "open", "post", "start", "generate"],
  ["update", "edit", "modify", "change", "patch", "set", "rename", "replace"],
  ["list", "show", "all", "view", "browse", "enumerate"],
  ["get", "fetch", "read", "show", "view", "retrieve", "details", "lookup", "look", "inspect", "describe"],
  ["search", "find", "query", "look", "lookup", "filter"],
  ["export", "download", "dump"],
  ["upload", "import"],
  ["star", "favorite", "bookmark"],
  ["watch", "subscribe", "subscription", "follow"],
  ["user", "member", "person", "people", "account"],
  ["authenticated", "current", "me", "my", "mine", "myself", "self"],
  ["run", "execute", "trigger", "dispatch"],
  ["cancel", "stop", "abort", "halt"],
  ["log", "output"],
  ["sync", "synchronize", "refresh"],
];

/** Raw lowercase words: camelCase, kebab-case, snake_case, dotted and slashed paths all split. */
export function rawWords(text: string): string[] {
  return (text.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? []).map((w) => w.toLowerCase());
}

const VOWEL = /[aeiouy]/;

/**
 * A light English stemmer: plural and verb endings (`repositories`, `branches`, `merged`,
 * `starring`), `-tion`/`-sion` (`protection` → `protect`, `deletion` → `delet`), then a final
 * `e`, so `release`/`releases`/`released` meet on `releas`.
 */
export function stem(word: string): string {
  let cached = stems.get(word);
  if (cached === undefined) {
    if (stems.size >= 100_000) stems.clear();
    cached = stemWord(word);
    stems.set(word, cached);
  }
  return cached;
}

/** Tool texts repeat the same words thousands of times; the vocabulary is small. */
const stems = new Map<string, string>();

function stemWord(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|sh|ch|x|z)es$/.test(w) || /uses$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let cut = false;
  for (const suffix of ["ing", "ed"]) {
    if (w.endsWith(suffix) && VOWEL.test(w.slice(0, -suffix.length)) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      cut = true;
      break;
    }
  }
  if (cut && w.length > 3 && /([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
  if (!cut && /[ts]ion$/.test(w) && w.length >= 7) w = w.slice(0, -3);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** The words of a text that count, canonical spellings applied, not yet stemmed. */
function words(text: string): string[] {
  const out: string[] = [];
  for (const word of rawWords(text)) {
    if (STOP.has(word)) continue;
    const same = SAME.get(word);
    if (same) for (const w of same) out.push(w);
    else out.push(word);
  }
  return out;
}

/** Search terms of a text: its stemmed words in order (repeats kept: they count as term frequency). */
export function searchTerms(text: string): string[] {
  return words(text).map(stem);
}

/**
 * Adjacent words of a text joined (`re-run` → `rerun`, `web hook` → `webhook`), stemmed, so
 * either spelling meets the other.
 */
export function joinedTerms(text: string): string[] {
  const ws = words(text);
  const out: string[] = [];
  for (let i = 0; i + 1 < ws.length; i++) out.push(stem(`${ws[i]}${ws[i + 1]}`));
  return out;
}

/** Stemmed term → related stemmed terms (not itself). */
const RELATED: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of RELATED_GROUPS) {
    const stems = group.map(stem);
    for (const a of stems) for (const b of stems) if (a !== b) (map.get(a) ?? map.set(a, new Set()).get(a)!).add(b);
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/** Terms related to a stemmed term (its synonyms in requests to an API), not including itself. */
export function relatedTerms(term: string): readonly string[] {
  return RELATED.get(term) ?? [];
}
