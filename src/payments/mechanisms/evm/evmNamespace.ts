/** The CAIP-2 namespace of the networks the EVM family pays on. */
export const evmNamespace = 'eip155'
