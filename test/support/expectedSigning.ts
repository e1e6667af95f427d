// The `signing` object a 401 (0xE4/0xE5) on the devnet must carry: written out literally, not
// derived from the gateway's own code, so that the tests that use it check the wire format.
export function expectedSigning(executor: string, message: Record<string, unknown>) {
  return {
    domain: { name: 'IntentExecutor', version: '1', chainId: 31337, verifyingContract: executor },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
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
    },
    primaryType: 'Intent',
    message,
  }
}
