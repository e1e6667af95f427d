// The Intent struct of the reference executor: the EIP-712 type and, as a tuple, the ABI encoding
// whose keccak256 is X-Intent-Hash (docs/api-contract.md §3, §9).
export const intentTypes = {
  Intent: [
    { name: 'sender', type: 'address' },
    { name: 'target', type: 'address' },
    { name: 'data', type: 'bytes' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'policyId', type: 'bytes32' },
  ],
} as const
