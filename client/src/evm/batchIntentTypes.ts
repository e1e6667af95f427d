// The BatchIntent struct of IntentAccount: the EIP-712 types a batch is signed under, and (as a
// tuple) the ABI encoding whose keccak256 is its X-Intent-Hash. A call is (target, value, data):
// value before data, unlike the single-call Intent.
export const batchIntentTypes = {
  BatchIntent: [
    { name: 'sender', type: 'address' },
    { name: 'calls', type: 'Call[]' },
    { name: 'nonce', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'policyId', type: 'bytes32' },
  ],
  Call: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
} as const
