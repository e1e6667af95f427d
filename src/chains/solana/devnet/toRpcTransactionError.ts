// LiteSVM's failure objects in the JSON shape a Solana RPC node sends (`"AccountNotFound"`,
// `{ "InstructionError": [0, { "Custom": 7 }] }`), which @solana/kit decodes.

// The order of Solana's TransactionError and InstructionError variants without fields, as
// LiteSVM numbers them (litesvm/dist/internal.d.ts).
const transactionErrors =
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled'.split(
    ' ',
  )
const instructionErrors =
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'.split(
    ' ',
  )

export type RpcTransactionError = string | Record<string, unknown>

export function toRpcTransactionError(err: unknown): RpcTransactionError {
  if (typeof err === 'number') return transactionErrors[err] ?? `UnknownTransactionError${err}`
  if (err && typeof err === 'object') {
    const e = err as { index?: number; err?: () => unknown; accountIndex?: number; toString(): string }
    if (typeof e.index === 'number' && typeof e.err === 'function') {
      const inner = e.err()
      if (typeof inner === 'number') return { InstructionError: [e.index, instructionErrors[inner] ?? 'GenericError'] }
      if (inner && typeof inner === 'object' && 'code' in inner)
        return { InstructionError: [e.index, { Custom: Number((inner as { code: number }).code) }] }
      if (inner && typeof inner === 'object' && 'msg' in inner)
        return { InstructionError: [e.index, { BorshIoError: String((inner as { msg: string }).msg) }] }
    }
    if (typeof e.index === 'number') return { DuplicateInstruction: e.index }
    if (typeof e.accountIndex === 'number') return { InsufficientFundsForRent: { account_index: e.accountIndex } }
  }
  return 'GenericError'
}
