/**
 * Whether the Discord surface still acts. `open` turns false the moment stop() begins and never
 * turns back: every handler checks it before it decides, changes state or answers with a decision,
 * also after each of its own awaits, so nothing acts after a stop (a late click, a handler that was
 * waiting for a role lookup, a connection discord.js brings back).
 */
export interface SurfaceLife {
  readonly open: boolean;
}

export const STOPPING_TEXT = "The assistant is shutting down, so nothing was changed. Try again once it is back.";
