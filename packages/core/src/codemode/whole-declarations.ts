/**
 * Tools above which declarations are built per snippet (reachable-declarations.ts), not whole at
 * load: GitHub's 1,223 operations still render whole (seconds, once, then cached); Microsoft
 * Graph's 11,422 render to 36 MB and take more than a gigabyte to render and to typecheck.
 * Its own file: the loader reads it without importing TypeScript.
 */
export const WHOLE_DECLARATIONS_TOOLS = 3_000;
