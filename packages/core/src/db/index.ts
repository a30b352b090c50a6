/** Storage basics: the gateway's SQLite database and time-ordered ids. */
export { openDatabase } from "./open.ts";
export { newId } from "./new-id.ts";
