export { retrying } from "./retry.ts";
