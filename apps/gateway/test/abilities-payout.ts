/**
 * Test support (#32): an ability whose steps are the ledger tools (runs/fixtures/ledger-tools.ts):
 * read, a gate, a transfer (the write a kill must not repeat), a conditional step.
 */
export const PAYOUT = `name: payout
description: Pay an amount out of the ledger once a person approved
inputs:
  amount: { type: number, required: true }
steps:
  - id: check
    type: tool
    tool: ledger.read
  - id: approve
    type: approval
    needs: [check]
    prompt: "Transfer {{inputs.amount}}? The ledger has {{steps.check.output.entries}} entries."
  - id: pay
    type: tool
    needs: [approve]
    tool: ledger.transfer
    input: { amount: "{{inputs.amount}}" }
  - id: raise_limit
    type: tool
    needs: [pay]
    when: inputs.amount > 100
    tool: ledger.setLimit
    input: { limit: "{{inputs.amount}}" }
`;
