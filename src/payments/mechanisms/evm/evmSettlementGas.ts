// The gas an EVM settlement may take. The facilitator chooses the settlement's gas price (the
// node's) and sends it from its own account, but the gas used is the payer's to shape when its
// signature is a contract's (ERC-1271: the token calls the payer's isValidSignature, whose cost
// the payer writes). A settlement whose estimate is above the ceiling is not sent.

/** DemoDollar's transferWithAuthorization with an ECDSA signature, on the devnet (anvil): 85,686 gas (test/payments/facilitatorFeesEvm.test.ts). */
export const evmSettlementGasMeasured = 85_686n

/** The default ceiling: a little over twice the measured transfer (171,372), rounded to 200,000. */
export const defaultEvmMaxSettlementGas = 200_000n
