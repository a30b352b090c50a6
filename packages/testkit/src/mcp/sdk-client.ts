import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The MCP SDK's own client over streamable HTTP, with no OpenAssistant code in between (a baseline). */
export async function connectSdkClient(url: string): Promise<Client> {
  const client = new Client({ name: "baseline", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
