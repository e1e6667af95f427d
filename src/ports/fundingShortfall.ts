// What a chain says is short when an intent answers 0x54: the sender's deposit (which a deposit
// fixes), in account mode the account's own balance (which funding the account fixes), or a policy cap (which no payment fixes). Carried in the 402's extensions.deposit.
export type FundingShortfall =
  | {
      limit: 'deposit'
      detail: string /** What is missing, in the chain's smallest unit. */
      amount: string
      deposit: string
    }
  | { limit: 'policy'; detail: string /** What the policy still allows for one intent, smallest unit. */; cap: string }
  /** Account mode: the value leaves the sender's own address; what is missing and the balance it has, smallest unit. */
  | { limit: 'balance'; detail: string; amount: string; balance: string }
