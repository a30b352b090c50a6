/** Child of the start benches: imports one module and prints which heavy packages got loaded. */
const [entry] = process.argv.slice(2) as [string];
await import(entry);
const loaded = Object.keys(require.cache);
const heavy = ["typescript", "discord.js", "effect", "@anthropic-ai/sdk", "zod-to-ts"];
console.log(JSON.stringify(heavy.filter((p) => loaded.some((f) => f.includes(`/node_modules/${p}/`)))));
