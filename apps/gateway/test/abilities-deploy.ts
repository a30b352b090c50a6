import { defineTool, type ToolTree, z } from "@openassistant/sdk";

/** The design's deploy flow adapted: CI checked, a gate, the deploy, an announcement on prod only. */
export const DEPLOY = `name: deploy
description: Deploy a version after CI passed and a person approved
triggers: { keywords: [deploy] }
inputs:
  version: { type: string, required: true, pattern: '^v\\d+\\.\\d+\\.\\d+$' }
  environment: { type: string, enum: [staging, prod], default: staging }
steps:
  - id: ci
    type: tool
    tool: ci.status
    input: { ref: "{{inputs.version}}" }
    validation: { expression: output.state == "success" }
  - id: approve
    type: approval
    needs: [ci]
    prompt: "Deploy {{inputs.version}} to {{inputs.environment}}? CI is {{steps.ci.output.state}}."
  - id: deploy
    type: tool
    needs: [approve]
    tool: deploy.run
    input: { version: "{{inputs.version}}", env: "{{inputs.environment}}" }
  - id: announce
    type: tool
    needs: [deploy]
    when: inputs.environment == "prod"
    tool: chat.post
    input: { text: "Deployed {{inputs.version}}" }
`;

export function deployTools(ran: Array<{ what: string; at: number }>): ToolTree {
  const tool = (path: string, result: (i: Record<string, unknown>) => unknown) =>
    defineTool({
      description: `${path} (test)`,
      approval: "auto",
      args: z.object({}).catchall(z.unknown()),
      run: async (input) => {
        ran.push({ what: `${path}:${JSON.stringify(input)}`, at: performance.now() });
        return result(input);
      },
    });
  return {
    ci: { status: tool("ci.status", () => ({ state: "success" })) },
    deploy: { run: tool("deploy.run", (i) => ({ url: `https://${String(i.env)}.example.com` })) },
    chat: { post: tool("chat.post", () => ({ ok: true })) },
  };
}
